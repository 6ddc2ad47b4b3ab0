/** The SDK CLI's entry, `run(argv, env, output)`, which its `a2a-db` bin calls. */
type A2aDbRun = (
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  output: { log(...args: unknown[]): void; error(...args: unknown[]): void },
) => Promise<number>;

/**
 * Creates or upgrades the SDK's task table in the database at `url`, as
 * `a2a-db upgrade --store tasks --url <url>` does. The SDK ships its
 * migrations only inside that CLI, so this runs the CLI's own code in
 * process rather than a second copy of its schema (@a2a-js/sdk is pinned,
 * so the file's place in the package is fixed).
 */
export function migrateSdkTaskTable(url: string): Promise<void> {
  return upgradeSdkStore(url, 'tasks', 'task table');
}

/**
 * Creates or upgrades the SDK's push notification config table, for its
 * `DatabasePushNotificationStore`, as `a2a-db upgrade --store
 * push-notification-configs --url <url>` does.
 */
export function migrateSdkPushConfigTable(url: string): Promise<void> {
  return upgradeSdkStore(url, 'push-notification-configs', 'push notification config table');
}

async function upgradeSdkStore(url: string, store: string, what: string): Promise<void> {
  const sdkEntry = import.meta.resolve('@a2a-js/sdk');
  const { run } = (await import(new URL('./cli/run.js', sdkEntry).href)) as { run: A2aDbRun };
  const errors: string[] = [];
  const code = await run(
    ['upgrade', '--store', store, '--url', url],
    {},
    {
      log: () => {},
      error: (...args) => errors.push(args.map(String).join(' ')),
    },
  );
  if (code !== 0) {
    throw new Error(
      `the SDK's ${what} could not be migrated (a2a-db upgrade): ${errors.join('; ')}`,
    );
  }
}
