import { parseArgs } from 'node:util';
import type { Binding } from '@a2a-reminders/client';
import { BINDINGS } from '@a2a-reminders/client';
import type { TaskReminder, TaskReminderSchema } from '@a2a-reminders/proto';
import type { JsonObject, MessageInitShape } from '@bufbuild/protobuf';

export const DEFAULT_CARD_URL = 'http://127.0.0.1:41241/.well-known/agent-card.json';

/** What every subcommand needs to reach a worker. */
export interface Connection {
  /** The worker's agent card URL (or its base URL; the well-known path is then added). */
  readonly url: string;
  readonly binding: Binding;
  /** Extra headers (HTTP) or metadata (gRPC) sent with every call, e.g. authorization. */
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * A reminder to inject: the proto's TaskReminder as protobuf-es initializes
 * it, with the id and body every reminder needs (R9). Derived, so a field
 * added to the proto is a field here.
 */
export type InjectFields = MessageInitShape<typeof TaskReminderSchema> &
  Pick<TaskReminder, 'id' | 'body'>;

export type CoordinatorCommand =
  | { readonly kind: 'help'; readonly text: string }
  | {
      readonly kind: 'demo';
      readonly connection: Connection;
      readonly taskText?: string;
      readonly timeoutMs: number;
    }
  | {
      readonly kind: 'inject';
      readonly connection: Connection;
      readonly tenant: string;
      readonly taskId: string;
      readonly reminder: InjectFields;
      readonly json: boolean;
    }
  | {
      readonly kind: 'list';
      readonly connection: Connection;
      readonly tenant: string;
      readonly taskId: string;
      /** R49: records per page; the server's default (50) when unset. */
      readonly pageSize?: number;
      /** R49: print only the page after this token instead of following every page. */
      readonly pageToken?: string;
      /** R49: list live (pending or active) reminders only. */
      readonly liveOnly: boolean;
      readonly json: boolean;
    }
  | {
      readonly kind: 'cancel';
      readonly connection: Connection;
      readonly tenant: string;
      readonly taskId: string;
      readonly reminderId: string;
      readonly json: boolean;
    }
  | {
      readonly kind: 'watch';
      readonly connection: Connection;
      readonly tenant: string;
      readonly taskId: string;
      /** Learn the task's events by push notification on this local port (0: any) instead of a stream. */
      readonly pushPort?: number;
    };

export type SubcommandName = Exclude<CoordinatorCommand['kind'], 'help'>;

/** A command line the coordinator cannot run; main prints it with the usage and exits 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  constructor(
    message: string,
    readonly usage: string,
  ) {
    super(message);
  }
}

const CONNECTION_HELP = `Connection options:
  --url <url>          the worker's agent card URL (default ${DEFAULT_CARD_URL})
  --binding <binding>  jsonrpc | rest | grpc (default jsonrpc); the interface is taken from the card
  --header <name=value>  extra header (gRPC: metadata) sent with every call; repeatable
  -h, --help           show this help`;

export const MAIN_USAGE = `Usage: a2a-reminders-coordinator <command> [options]

Delegates coding tasks to an A2A worker and manages their task reminders over any binding.

Commands:
  demo     delegate a task and play the three reminder cases while it runs, printing a timeline
  inject   inject one reminder into a task
  list     list a task's reminders and their states
  cancel   cancel a live reminder
  watch    follow a task's stream, printing its progress and reminder events

Run "a2a-reminders-coordinator <command> --help" for a command's options.`;

export const USAGES: Readonly<Record<SubcommandName, string>> = {
  demo: `Usage: a2a-reminders-coordinator demo [options]

Delegates a coding task to the worker, subscribes to its stream and, while it runs, plays three
cases: an upstream PR merges (a rebase reminder with a dedupeKey), a cost monitor fires three times
in a row under one dedupeKey (only the latest survives), and a CI event is forwarded. Prints a
timeline as events arrive and a summary of every reminder's fate. Exits 0 only if every reminder
reached the fate the demo expects.

Options:
  --task <text>        the coding task to delegate (default: a retry/backoff change)
  --timeout-ms <ms>    give up after this long (default 120000)
${CONNECTION_HELP}`,
  inject: `Usage: a2a-reminders-coordinator inject --task-id <id> --id <reminder id> --body <text> [options]

Injects one reminder into a task that is not yet terminal.

Options:
  --task-id <id>       the task to remind (required)
  --id <id>            reminder id, the idempotency key (required)
  --body <text>        what the worker's model sees (required)
  --dedupe-key <key>   displace live reminders of the task with the same key
  --ttl-turns <n>      turns to surface the reminder on (server default 1)
  --role-hint <role>   e.g. system or developer
  --source <label>     provenance shown to the model, e.g. ci
  --metadata <json>    a JSON object kept with the reminder
  --tenant <tenant>    A2A tenant
  --json               print the ProtoJSON response
${CONNECTION_HELP}`,
  list: `Usage: a2a-reminders-coordinator list --task-id <id> [options]

Lists the reminders a task retains with their states, in acceptance order, following every page
of ListTaskReminders; with --page-token, prints that one page and the token of the next.

Options:
  --task-id <id>       the task (required)
  --live-only          only live (pending or active) reminders
  --page-size <n>      records per ListTaskReminders call, 1 to 100 (server default 50)
  --page-token <token> print only the page after this token (a nextPageToken printed earlier)
  --tenant <tenant>    A2A tenant
  --json               print the ProtoJSON response (every page merged into one, or the one page)
${CONNECTION_HELP}`,
  cancel: `Usage: a2a-reminders-coordinator cancel --task-id <id> --id <reminder id> [options]

Cancels a live (pending or active) reminder.

Options:
  --task-id <id>       the task (required)
  --id <id>            the reminder to cancel (required)
  --tenant <tenant>    A2A tenant
  --json               print the ProtoJSON response
${CONNECTION_HELP}`,
  watch: `Usage: a2a-reminders-coordinator watch --task-id <id> [options]

Subscribes to a running task (SubscribeToTask) and prints its progress and reminder events until
the task ends. With --push, holds no stream: it starts a webhook on 127.0.0.1:<port>, registers it
on the task (CreateTaskPushNotificationConfig, with a random token it then checks on every
notification), prints what the worker pushes until the task ends, and removes the registration.

Options:
  --task-id <id>       the task (required)
  --tenant <tenant>    A2A tenant
  --push <port>        learn the events by push notification on this local port; 0 = any free port
${CONNECTION_HELP}`,
};

const OPTIONS = {
  url: { type: 'string' },
  binding: { type: 'string' },
  header: { type: 'string', multiple: true },
  help: { type: 'boolean', short: 'h' },
  task: { type: 'string' },
  'timeout-ms': { type: 'string' },
  'task-id': { type: 'string' },
  id: { type: 'string' },
  body: { type: 'string' },
  'dedupe-key': { type: 'string' },
  'ttl-turns': { type: 'string' },
  'role-hint': { type: 'string' },
  source: { type: 'string' },
  metadata: { type: 'string' },
  tenant: { type: 'string' },
  json: { type: 'boolean' },
  'page-size': { type: 'string' },
  'page-token': { type: 'string' },
  'live-only': { type: 'boolean' },
  push: { type: 'string' },
} as const;

type OptionName = keyof typeof OPTIONS;

/** Which options each subcommand takes, besides the connection ones. */
const ALLOWED: Readonly<Record<SubcommandName, readonly OptionName[]>> = {
  demo: ['task', 'timeout-ms'],
  inject: [
    'task-id',
    'id',
    'body',
    'dedupe-key',
    'ttl-turns',
    'role-hint',
    'source',
    'metadata',
    'tenant',
    'json',
  ],
  list: ['task-id', 'tenant', 'json', 'page-size', 'page-token', 'live-only'],
  cancel: ['task-id', 'id', 'tenant', 'json'],
  watch: ['task-id', 'tenant', 'push'],
};

const CONNECTION_OPTIONS: readonly OptionName[] = ['url', 'binding', 'header', 'help'];

export function parseCoordinatorArgs(argv: readonly string[]): CoordinatorCommand {
  const [name, ...rest] = argv;
  // No command is a usage error (exit 2, usage on stderr), so a script that
  // lost its arguments fails instead of printing help and passing.
  if (name === undefined) throw new UsageError('a command is required', MAIN_USAGE);
  if (name === '--help' || name === '-h' || name === 'help') {
    return { kind: 'help', text: MAIN_USAGE };
  }
  if (!isSubcommand(name)) throw new UsageError(`unknown command "${name}"`, MAIN_USAGE);
  const usage = USAGES[name];

  let values: ReturnType<typeof parse>['values'];
  try {
    values = parse(rest).values;
  } catch (error) {
    throw new UsageError((error as Error).message, usage);
  }
  if (values.help) return { kind: 'help', text: usage };
  for (const key of Object.keys(values) as OptionName[]) {
    if (!CONNECTION_OPTIONS.includes(key) && !ALLOWED[name].includes(key)) {
      throw new UsageError(`"${name}" does not take --${key}`, usage);
    }
  }

  const fail = (message: string): never => {
    throw new UsageError(message, usage);
  };
  const required = (key: OptionName): string => {
    const value = values[key];
    if (typeof value !== 'string' || value.length === 0) return fail(`--${key} is required`);
    return value;
  };
  const connection = parseConnection(values, fail);
  const tenant = values.tenant ?? '';

  switch (name) {
    case 'demo':
      return {
        kind: 'demo',
        connection,
        ...(values.task !== undefined ? { taskText: values.task } : {}),
        timeoutMs: positiveInt('--timeout-ms', values['timeout-ms'], 120_000, fail),
      };
    case 'inject': {
      const reminder: InjectFields = {
        id: required('id'),
        body: required('body'),
        ...(values['dedupe-key'] !== undefined ? { dedupeKey: values['dedupe-key'] } : {}),
        ...(values['ttl-turns'] !== undefined
          ? { ttlTurns: integer('--ttl-turns', values['ttl-turns'], fail) }
          : {}),
        ...(values['role-hint'] !== undefined ? { roleHint: values['role-hint'] } : {}),
        ...(values.source !== undefined ? { source: values.source } : {}),
        ...(values.metadata !== undefined ? { metadata: jsonObject(values.metadata, fail) } : {}),
      };
      return {
        kind: 'inject',
        connection,
        tenant,
        taskId: required('task-id'),
        reminder,
        json: values.json ?? false,
      };
    }
    case 'list':
      return {
        kind: 'list',
        connection,
        tenant,
        taskId: required('task-id'),
        // The server checks the range (R49); the CLI only needs an integer.
        ...(values['page-size'] !== undefined
          ? { pageSize: integer('--page-size', values['page-size'], fail) }
          : {}),
        ...(values['page-token'] !== undefined ? { pageToken: values['page-token'] } : {}),
        liveOnly: values['live-only'] ?? false,
        json: values.json ?? false,
      };
    case 'cancel':
      return {
        kind: 'cancel',
        connection,
        tenant,
        taskId: required('task-id'),
        reminderId: required('id'),
        json: values.json ?? false,
      };
    case 'watch':
      return {
        kind: 'watch',
        connection,
        tenant,
        taskId: required('task-id'),
        ...(values.push === undefined ? {} : { pushPort: port('--push', values.push, fail) }),
      };
  }
}

function parse(argv: readonly string[]) {
  return parseArgs({ args: [...argv], strict: true, allowPositionals: false, options: OPTIONS });
}

function isSubcommand(name: string): name is SubcommandName {
  return Object.hasOwn(USAGES, name);
}

function parseConnection(
  values: ReturnType<typeof parse>['values'],
  fail: (message: string) => never,
): Connection {
  const binding = values.binding ?? 'jsonrpc';
  if (!(BINDINGS as readonly string[]).includes(binding)) {
    fail(`--binding must be one of ${BINDINGS.join(', ')}, got "${binding}"`);
  }
  const url = values.url ?? DEFAULT_CARD_URL;
  if (!URL.canParse(url)) fail(`--url must be an absolute URL, got "${url}"`);
  const headers: Record<string, string> = {};
  for (const header of values.header ?? []) {
    const at = header.indexOf('=');
    if (at <= 0) fail(`--header must look like name=value, got "${header}"`);
    headers[header.slice(0, at).trim().toLowerCase()] = header.slice(at + 1);
  }
  return { url, binding: binding as Binding, headers };
}

function positiveInt(
  name: string,
  raw: string | undefined,
  fallback: number,
  fail: (message: string) => never,
): number {
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) return fail(`${name} must be a positive integer`);
  return Number(raw);
}

/** Any integer: the server, not the CLI, decides what range is valid (spec: Validation). */
function integer(name: string, raw: string, fail: (message: string) => never): number {
  if (!/^-?\d+$/.test(raw)) return fail(`${name} must be an integer`);
  return Number(raw);
}

function jsonObject(raw: string, fail: (message: string) => never): JsonObject {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return fail('--metadata must be a JSON object');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return fail('--metadata must be a JSON object');
  }
  return value as JsonObject;
}

/** The PostgreSQL server `npm run demo -- --replicas <n>` uses unless `--pg-url` names another. */
export const DEFAULT_PG_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * At most one replica per demo reminder besides replica 1 (the demo injects
 * five), so every replica started receives at least one.
 */
export const MAX_DEMO_REPLICAS = 6;

/** `npm run demo` (run-demo.js): what to start and how to pace its workers. */
export interface RunDemoOptions {
  /** The worker's pause between turns (its `--turn-ms`). */
  readonly turnMs: number;
  /** The worker's turns per task (its `--turns`). */
  readonly turns: number;
  /** The built worker entry; run-demo picks the sibling app when unset. */
  readonly workerMain?: string;
  readonly mode:
    | { readonly kind: 'bindings'; readonly bindings: readonly Binding[] }
    | { readonly kind: 'replicas'; readonly replicas: number; readonly pgUrl: string };
}

export type RunDemoCommand =
  | { readonly kind: 'help'; readonly text: string }
  | { readonly kind: 'run'; readonly options: RunDemoOptions };

export const RUN_DEMO_USAGE = `Usage: run-demo [--turn-ms <ms>] [--turns <n>] [--binding <b>]...
       run-demo --replicas <n> [--pg-url <url>] [--turn-ms <ms>] [--turns <n>]

Without --replicas: starts a worker on free loopback ports, its tasks and reminders in a fresh
SQLite file, and runs the coordinator demo over each binding.

With --replicas <n>: creates a fresh PostgreSQL database, a2a_reminders_demo_<random>, on the
server --pg-url names, starts n worker replicas on it, delegates a task to replica-1 (streaming)
and injects the demo's reminders over the other replicas across JSON-RPC, REST and gRPC. It
prints which replica and binding accepted each reminder, every fate as it arrives on replica-1's
stream, and checks that each reminder ended in the state that stream showed, as every replica
lists it. The database is dropped at the end, on failure and on Ctrl-C too.

Options:
  --turn-ms <ms>   the worker's pause between turns (default 600)
  --turns <n>      the worker's turns per task (default 12)
  --binding <b>    jsonrpc | rest | grpc; repeatable (default: all three in turn); not with --replicas
  --replicas <n>   run n worker replicas on one PostgreSQL database, 2 to ${MAX_DEMO_REPLICAS}
  --pg-url <url>   the PostgreSQL server, as the URL of a database to connect to while creating and
                   dropping the demo's own (default ${DEFAULT_PG_URL});
                   the demo never touches the database this URL names
  --worker <path>  the worker's built entry (default: the sibling apps/worker/dist/main.js)
  -h, --help       show this help`;

/** Parses `npm run demo`'s arguments; throws UsageError (with RUN_DEMO_USAGE) on a bad one. */
export function parseRunDemoArgs(argv: readonly string[]): RunDemoCommand {
  const fail = (message: string): never => {
    throw new UsageError(message, RUN_DEMO_USAGE);
  };
  let values: ReturnType<typeof parseRunDemo>['values'];
  try {
    values = parseRunDemo(argv).values;
  } catch (error) {
    return fail((error as Error).message);
  }
  if (values.help) return { kind: 'help', text: RUN_DEMO_USAGE };
  const paced = {
    turnMs: positiveInt('--turn-ms', values['turn-ms'], 600, fail),
    turns: positiveInt('--turns', values.turns, 12, fail),
    ...(values.worker === undefined ? {} : { workerMain: values.worker }),
  };

  if (values.replicas === undefined) {
    if (values['pg-url'] !== undefined) fail('--pg-url applies with --replicas only');
    const bindings = values.binding ?? [...BINDINGS];
    const unknown = bindings.filter((b) => !(BINDINGS as readonly string[]).includes(b));
    if (unknown.length > 0) fail(`unknown binding ${unknown.join(', ')}`);
    return {
      kind: 'run',
      options: { ...paced, mode: { kind: 'bindings', bindings: bindings as Binding[] } },
    };
  }

  // The replica demo spreads its calls over every binding itself.
  if (values.binding !== undefined) fail('--binding does not apply with --replicas');
  const replicas = positiveInt('--replicas', values.replicas, 3, fail);
  if (replicas < 2 || replicas > MAX_DEMO_REPLICAS) {
    fail(`--replicas must be between 2 and ${MAX_DEMO_REPLICAS}, got ${replicas}`);
  }
  const pgUrl = values['pg-url'] ?? DEFAULT_PG_URL;
  if (!URL.canParse(pgUrl) || !/^postgres(ql)?:$/.test(new URL(pgUrl).protocol)) {
    fail(`--pg-url must be a postgres:// URL, got "${pgUrl}"`);
  }
  return { kind: 'run', options: { ...paced, mode: { kind: 'replicas', replicas, pgUrl } } };
}

function parseRunDemo(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: false,
    options: {
      'turn-ms': { type: 'string' },
      turns: { type: 'string' },
      binding: { type: 'string', multiple: true },
      replicas: { type: 'string' },
      'pg-url': { type: 'string' },
      worker: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

function port(name: string, raw: string, fail: (message: string) => never): number {
  const value = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(value >= 0 && value <= 65535)) fail(`${name} must be a port from 0 to 65535, got "${raw}"`);
  return value;
}
