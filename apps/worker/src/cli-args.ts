import { parseArgs } from 'node:util';
import type { Binding } from '@a2a-reminders/core';
import { BINDINGS, defaultReminderLimits } from '@a2a-reminders/core';
import { parseDatabaseUrl } from '@a2a-reminders/database';
import { DEFAULT_AGENT_NAME } from './agent-card.js';
import { DEFAULT_STORE_FILE } from './worker-stores.js';

export interface WorkerCliOptions {
  readonly host: string;
  readonly port: number;
  readonly grpcPort: number;
  /** Most turns per task; `Infinity` (`--turns 0`): no limit, the task works until cancelled. */
  readonly maxTurns: number;
  readonly turnMs: number;
  readonly logPrompts: boolean;
  /** `memory`, `sqlite:<file>` or `postgres://…`. */
  readonly store: string;
  /** PostgreSQL: this replica's name in task leases. */
  readonly replicaId?: string;
  /** PostgreSQL: lease length in ms (R53). */
  readonly leaseMs?: number;
  /** SQLite: how long a call waits for another process's write lock (R69). */
  readonly sqliteBusyMs?: number;
  /** SQLite: `full` syncs every commit, so a failing disk or OS loses none (default `normal`). */
  readonly sqliteSync?: 'normal' | 'full';
  /** An OpenAI-compatible endpoint to run the agent on, instead of the offline scripted model. */
  readonly modelEndpoint?: ModelEndpoint;
  /** `--delegate-tests`: the agent the test step is delegated to, reminders forwarded (spec §15). */
  readonly delegateTests?: TestAgent;
  /** `--max-forward-hops`: the hop limit of forwarded reminders this worker takes (R60). */
  readonly maxForwardHops?: number;
  /** `--name`: the agent card's name. */
  readonly name?: string;
  /** `--test-agent`: honour the conformance kit's test-agent contract (docs/conformance-kit.md). */
  readonly testAgent?: boolean;
}

/** The agent `--delegate-tests` names, and the binding the worker reaches it over. */
export interface TestAgent {
  /** Its agent card URL, or the base URL the card is served under. */
  readonly url: string;
  readonly binding: Binding;
}

/** `--model-url` and `--model`; the key comes from {@link MODEL_API_KEY_ENV}, never a flag. */
export interface ModelEndpoint {
  /** Base URL of the OpenAI-compatible API, e.g. `http://127.0.0.1:11434/v1`. */
  readonly url: string;
  /** The model name the endpoint knows. */
  readonly model: string;
}

/**
 * The environment variable the model endpoint's API key is read from (unset:
 * no key sent). A name of this project's own, so a key exported for another
 * tool never goes to whatever `--model-url` names.
 */
export const MODEL_API_KEY_ENV = 'A2A_REMINDERS_MODEL_API_KEY';

export type WorkerCommand =
  | { readonly kind: 'run'; readonly options: WorkerCliOptions }
  | { readonly kind: 'help'; readonly text: string };

/** A command line the worker cannot run; main prints it with the usage and exits 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/**
 * The shortest pause between turns of a task with no turn limit (`--turns 0`):
 * each turn adds a status message to the task's history, so a task that never
 * ends grows by at most two messages a second (the default pace).
 */
export const MIN_UNLIMITED_TURN_MS = 500;

export const WORKER_DEFAULTS: WorkerCliOptions = {
  host: '127.0.0.1',
  port: 41241,
  grpcPort: 41242,
  maxTurns: 12,
  turnMs: 500,
  logPrompts: false,
  store: `sqlite:${DEFAULT_STORE_FILE}`,
};

export const WORKER_USAGE = `Usage: a2a-reminders-worker [options]

An A2A v1.0 coding agent serving JSON-RPC, REST and gRPC (with server reflection) with the
task-reminders extension.
Prints one line "READY http=<base url> grpc=<host:port>" when it serves; stops on SIGINT/SIGTERM.

Options:
  --host <host>       interface to listen on (default ${WORKER_DEFAULTS.host})
  --port <port>       HTTP port for JSON-RPC, REST and the agent card; 0 = any free port (default ${WORKER_DEFAULTS.port})
  --grpc-port <port>  gRPC port; 0 = any free port (default ${WORKER_DEFAULTS.grpcPort})
  --turns <n>         most turns per task (default ${WORKER_DEFAULTS.maxTurns}); 0 = no limit: a task keeps
                      working, a turn every --turn-ms, until it is cancelled (CancelTask,
                      or Ctrl-C on the worker) or a reminder makes the agent wrap up
  --turn-ms <ms>      pause between turns in milliseconds (default ${WORKER_DEFAULTS.turnMs}; at least
                      ${MIN_UNLIMITED_TURN_MS} with --turns 0)
  --log-prompts       print every turn's prompt, showing where each reminder went
  --model-url <url>   run the agent on an OpenAI-compatible endpoint (chat completions with
                      tools: a hosted provider, or Ollama, vLLM, llama.cpp) instead of the
                      offline scripted model; the API key, if any, is read from $${MODEL_API_KEY_ENV}
  --model <name>      the model to use at --model-url (required with it)
  --store <url>       where tasks and reminders live: memory, sqlite:<file> or
                      postgres://user@host:port/database (default ${WORKER_DEFAULTS.store},
                      in the working directory; its absolute path is printed at start)
                      With postgres://, several workers on one database form one deployment
                      (replicas): inject on any, events reach the one running the task.
  --name <name>       the agent card's name (default "${DEFAULT_AGENT_NAME}")
  --delegate-tests <url>
                      delegate each test step to the A2A agent at <url> (its agent card URL or
                      base URL; another worker, say) and forward the task's reminders into that
                      sub-task, with provenance; their copies' fates come back on the task
  --delegate-binding <binding>
                      jsonrpc, rest or grpc: how --delegate-tests is reached (default jsonrpc)
  --max-forward-hops <n>
                      most hops a forwarded reminder may have travelled to be accepted here
                      (default ${defaultReminderLimits.maxForwardHops}; 0 refuses every forwarded reminder)
  --test-agent        for testing only: also honour the conformance kit's test-agent contract
                      (docs/conformance-kit.md): a message carrying its metadata, and every
                      follow-up on a task one started, is run by the contract's test agent,
                      whose tasks stay running and take turns on command
  --replica-id <id>   postgres: this replica's name in task leases (default host:pid:random)
  --lease-ms <ms>     postgres: a task whose replica stops heartbeating is ended FAILED by
                      another replica after this long (default 10000; checked every quarter)
  --sqlite-busy-ms <ms>
                      sqlite: how long a call waits for another process's lock on the file
                      before it answers UNAVAILABLE (default 10000; other calls go on meanwhile)
  --sqlite-sync <mode>
                      sqlite: normal (default) keeps every acknowledged reminder across a crash
                      of the process; full also across a failing disk, OS crash or power loss,
                      at one more sync per commit
  -h, --help          show this help`;

export function parseWorkerArgs(argv: readonly string[]): WorkerCommand {
  let values: ReturnType<typeof parse>['values'];
  try {
    values = parse(argv).values;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help) return { kind: 'help', text: WORKER_USAGE };
  const turns = intOption('--turns', values.turns, WORKER_DEFAULTS.maxTurns, 0, 1000);
  const turnMs = intOption('--turn-ms', values['turn-ms'], WORKER_DEFAULTS.turnMs, 0, 600_000);
  // A task with no turn limit and no pause would spin, writing a status per turn, until cancelled.
  if (turns === 0 && turnMs < MIN_UNLIMITED_TURN_MS) {
    throw new UsageError(
      `--turns 0 (no limit) needs --turn-ms of at least ${MIN_UNLIMITED_TURN_MS}, got ${turnMs}`,
    );
  }
  return {
    kind: 'run',
    options: {
      host: values.host ?? WORKER_DEFAULTS.host,
      port: intOption('--port', values.port, WORKER_DEFAULTS.port, 0, 65535),
      grpcPort: intOption('--grpc-port', values['grpc-port'], WORKER_DEFAULTS.grpcPort, 0, 65535),
      maxTurns: turns === 0 ? Number.POSITIVE_INFINITY : turns,
      turnMs,
      logPrompts: values['log-prompts'] ?? false,
      store: storeOption(values.store),
      ...(values['replica-id'] === undefined ? {} : { replicaId: values['replica-id'] }),
      ...(values['lease-ms'] === undefined
        ? {}
        : { leaseMs: intOption('--lease-ms', values['lease-ms'], 10_000, 200, 3_600_000) }),
      ...(values['sqlite-busy-ms'] === undefined
        ? {}
        : {
            sqliteBusyMs: intOption(
              '--sqlite-busy-ms',
              values['sqlite-busy-ms'],
              10_000,
              0,
              600_000,
            ),
          }),
      ...sqliteSyncOption(values['sqlite-sync']),
      ...modelOption(values['model-url'], values.model),
      ...nameOption(values.name),
      ...delegateOption(values['delegate-tests'], values['delegate-binding']),
      ...(values['max-forward-hops'] === undefined
        ? {}
        : {
            maxForwardHops: intOption(
              '--max-forward-hops',
              values['max-forward-hops'],
              defaultReminderLimits.maxForwardHops,
              0,
              64,
            ),
          }),
      ...(values['test-agent'] === true ? { testAgent: true } : {}),
    },
  };
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: false,
    options: {
      host: { type: 'string' },
      port: { type: 'string' },
      'grpc-port': { type: 'string' },
      turns: { type: 'string' },
      'turn-ms': { type: 'string' },
      'log-prompts': { type: 'boolean' },
      store: { type: 'string' },
      'replica-id': { type: 'string' },
      'lease-ms': { type: 'string' },
      'sqlite-busy-ms': { type: 'string' },
      'sqlite-sync': { type: 'string' },
      'model-url': { type: 'string' },
      model: { type: 'string' },
      name: { type: 'string' },
      'delegate-tests': { type: 'string' },
      'delegate-binding': { type: 'string' },
      'max-forward-hops': { type: 'string' },
      'test-agent': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

function intOption(
  name: string,
  raw: string | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new UsageError(`${name} must be an integer, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) {
    throw new UsageError(`${name} must be between ${min} and ${max}, got ${value}`);
  }
  return value;
}

function storeOption(raw: string | undefined): string {
  if (raw === undefined) return WORKER_DEFAULTS.store;
  if (raw === 'memory') return raw;
  try {
    parseDatabaseUrl(raw);
  } catch (error) {
    throw new UsageError(`--store: ${(error as Error).message} Or pass memory.`);
  }
  return raw;
}

/** The URL a flag names, which must be http(s). */
function httpUrl(flag: string, url: string): URL {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
    throw new UsageError(`${flag} must be an http(s) URL, got "${url}"`);
  }
  return parsed;
}

function nameOption(name: string | undefined): { name?: string } {
  if (name === undefined) return {};
  if (name.trim() === '' || name.length > 100) {
    throw new UsageError('--name must be 1 to 100 characters');
  }
  return { name };
}

function delegateOption(
  url: string | undefined,
  binding: string | undefined,
): { delegateTests?: TestAgent } {
  if (url === undefined) {
    if (binding !== undefined) throw new UsageError('--delegate-binding needs --delegate-tests');
    return {};
  }
  httpUrl('--delegate-tests', url);
  const chosen = binding ?? 'jsonrpc';
  if (!(BINDINGS as readonly string[]).includes(chosen)) {
    throw new UsageError(
      `--delegate-binding must be one of ${BINDINGS.join(', ')}, got "${chosen}"`,
    );
  }
  return { delegateTests: { url, binding: chosen as Binding } };
}

function modelOption(
  url: string | undefined,
  model: string | undefined,
): { modelEndpoint?: ModelEndpoint } {
  if (url === undefined && model === undefined) return {};
  if (url === undefined) throw new UsageError('--model needs --model-url');
  if (model === undefined || model.trim() === '') {
    throw new UsageError('--model-url needs --model <name>');
  }
  const parsed = httpUrl('--model-url', url);
  // A key in the URL would show in logs and process lists: keys come from the environment.
  if (parsed.username !== '' || parsed.password !== '') {
    throw new UsageError(`--model-url must not carry credentials; set $${MODEL_API_KEY_ENV}`);
  }
  return { modelEndpoint: { url, model } };
}

function sqliteSyncOption(value: string | undefined): { sqliteSync?: 'normal' | 'full' } {
  if (value === undefined) return {};
  if (value === 'normal' || value === 'full') return { sqliteSync: value };
  throw new UsageError(`--sqlite-sync must be normal or full, got "${value}"`);
}
