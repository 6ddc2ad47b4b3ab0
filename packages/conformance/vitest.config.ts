import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Files whose requirements apply to PostgreSQL only (their `stores` in
 * src/requirements.ts): the other stores' projects do not collect them, so no
 * case is registered where it cannot apply, and none is skipped.
 */
const POSTGRES_ONLY = ['src/scenarios/replicas.test.ts', 'src/scenarios/connection-faults.test.ts'];

/** Files whose requirements apply to the database stores only (R69: the memory store cannot fail). */
const DATABASE_ONLY = ['src/scenarios/store-unavailable.test.ts'];

/** The kit's own tests (its runner, and its verdicts on agents built to pass or fail): once, not per store. */
const KIT_RUNNER = ['src/kit/**/*.test.ts', 'src/kit-proof/**/*.test.ts'];

/**
 * The one console line a passing run expects (issue 11: no noise from passing
 * tests). R29-reconciliation stores its task terminal behind the running
 * executor's back on purpose; the reminders it then ends reach the task's bus
 * with the bus's own (WORKING) status (R31), and the SDK's ResultManager warns
 * that it ignores that update for a task stored terminal. Only this message,
 * only in that scenario's cases, and only when vitest hands it over alone:
 * anything else, there or elsewhere, is shown.
 */
function expectedSdkWarning(log: string, entity: { type: string; name?: string } | undefined) {
  return (
    entity?.type === 'test' &&
    (entity.name ?? '').includes('] R29-reconciliation:') &&
    /^ResultManager: ignoring status update \d+ for terminal task \S+ \(\d+\)\n?$/.test(log)
  );
}

// Every case starts real servers (express + grpc-js on port 0) and waits on
// observed events, never on timers. Timeouts are hang guards only (issue 8
// §7: no verdict depends on the machine's speed), generous enough for a
// loaded two-core machine; files run one at a time to keep loopback port
// churn low.
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    fileParallelism: false,
    onConsoleLog: (log, type, entity) =>
      type === 'stderr' && expectedSdkWarning(log, entity) ? false : undefined,
    // Issue 9: the whole suite once per reminder store, as a parameter of the
    // same tests (harness/stack-store.ts), not copies.
    setupFiles: ['src/harness/store-setup.ts'],
    projects: [
      ...(['memory', 'sqlite', 'postgres'] as const).map((store) => ({
        extends: true,
        test: {
          name: store,
          // A card URL left in the shell must not turn the in-process suite into the kit.
          env: { CONFORMANCE_STORE: store, A2A_REMINDERS_KIT_CARD_URL: '' },
          exclude: [
            ...configDefaults.exclude,
            ...KIT_RUNNER,
            ...(store === 'postgres' ? [] : POSTGRES_ONLY),
            ...(store === 'memory' ? DATABASE_ONLY : []),
          ],
        },
      })),
      // The kit runner's own tests use no reminder store: they run once. Not
      // `extends: true`, which would add the root's include to theirs. Their
      // fixture files (*.kit-fixture.ts) match no project's include; only
      // those tests run them, through the runner.
      {
        test: {
          name: 'kit',
          include: KIT_RUNNER,
          // A hang guard only: each kit-proof case runs the whole kit in a process of its own.
          testTimeout: 600_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
