import { parseArgs } from 'node:util';
import { KIT_ENV } from './kit-env.js';
import type { KitBinding } from './kit-meta.js';
import { KIT_BINDINGS } from './kit-meta.js';

export const KIT_USAGE = `Usage: a2a-reminders-conformance --card-url <url> [options]

Runs the task-reminders conformance kit against a running agent, black-box:
every rule of the extension spec on each binding the agent's card lists,
reported as pass, fail or not observable.

The agent must be started for testing (it honours the test-agent contract of
docs/conformance-kit.md; the example worker: --test-agent).

Options:
  --card-url <url>       the agent card, fetched as given (required)
  --binding <name>       jsonrpc, rest or grpc; repeatable or comma-separated
                         (default: every binding the card lists)
  --header 'name: value' an extra header sent on every call, e.g.
                         'authorization: Bearer …'; repeatable. Headers can
                         also come from ${KIT_ENV.headers} (a JSON object),
                         which keeps secrets off the command line; --header
                         wins for the same name.
  --junit <file>         also write the report as JUnit XML
  --json <file>          also write the full report as JSON (nothing shortened)
  -h, --help             show this help

Exit code: 0 when no rule fails, 1 when a rule fails or the run could not
complete, 2 for a usage error, an agent card the kit cannot run against, or a
report file it cannot write.`;

export interface KitCliOptions {
  readonly cardUrl: string;
  /** Absent: every binding the card lists. */
  readonly bindings?: readonly KitBinding[];
  readonly headers: Readonly<Record<string, string>>;
  readonly junit?: string;
  readonly json?: string;
}

export type KitCommand =
  | { readonly kind: 'run'; readonly options: KitCliOptions }
  | { readonly kind: 'help' };

/** A bad command line: the CLI prints the message and the usage, and exits 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

// RFC 9110 token: the characters a header name may have.
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function checkHeader(name: string, value: string, where: string): void {
  if (!HEADER_NAME.test(name)) throw new UsageError(`${where}: "${name}" is not a header name`);
  // A CR or LF would let a value start a header of its own.
  if (/[\r\n\0]/.test(value)) {
    throw new UsageError(`${where}: the value of ${name} holds a line break or NUL`);
  }
}

function parseHeaderFlag(flag: string): [string, string] {
  const colon = flag.indexOf(':');
  if (colon < 1) throw new UsageError(`--header must be 'name: value', got '${flag}'`);
  const name = flag.slice(0, colon).trim();
  const value = flag.slice(colon + 1).trim();
  checkHeader(name, value, '--header');
  return [name, value];
}

function headersFromEnv(text: string | undefined): Record<string, string> {
  if (text === undefined || text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new UsageError(`${KIT_ENV.headers} is not JSON`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new UsageError(`${KIT_ENV.headers} must be a JSON object of header names to values`);
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(parsed)) {
    if (typeof value !== 'string') {
      throw new UsageError(`${KIT_ENV.headers}: the value of ${name} is not a string`);
    }
    checkHeader(name, value, KIT_ENV.headers);
    headers[name] = value;
  }
  return headers;
}

/** Header names are case-insensitive: a later name replaces an earlier one in any case. */
function mergeHeaders(...sets: Record<string, string>[]): Record<string, string> {
  const merged = new Map<string, [string, string]>();
  for (const set of sets) {
    for (const [name, value] of Object.entries(set)) merged.set(name.toLowerCase(), [name, value]);
  }
  return Object.fromEntries(merged.values());
}

function parseBindings(values: readonly string[] | undefined): KitBinding[] | undefined {
  if (values === undefined) return undefined;
  const names = values
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');
  for (const name of names) {
    if (!(KIT_BINDINGS as readonly string[]).includes(name)) {
      throw new UsageError(`--binding must be one of ${KIT_BINDINGS.join(', ')}, got '${name}'`);
    }
  }
  if (names.length === 0) throw new UsageError('--binding names no binding');
  return KIT_BINDINGS.filter((b) => names.includes(b));
}

/** Reads the command line; `env` is where A2A_REMINDERS_KIT_HEADERS may come from. */
export function parseKitArgs(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>> = {},
): KitCommand {
  let values: ReturnType<typeof parse>['values'];
  try {
    values = parse(argv).values;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help) return { kind: 'help' };
  const cardUrl = values['card-url'];
  if (cardUrl === undefined || cardUrl.trim() === '')
    throw new UsageError('--card-url is required');
  const flagHeaders = Object.fromEntries((values.header ?? []).map(parseHeaderFlag));
  const bindings = parseBindings(values.binding);
  return {
    kind: 'run',
    options: {
      cardUrl: cardUrl.trim(),
      ...(bindings === undefined ? {} : { bindings }),
      headers: mergeHeaders(headersFromEnv(env[KIT_ENV.headers]), flagHeaders),
      ...(values.junit === undefined ? {} : { junit: values.junit }),
      ...(values.json === undefined ? {} : { json: values.json }),
    },
  };
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    options: {
      'card-url': { type: 'string' },
      binding: { type: 'string', multiple: true },
      header: { type: 'string', multiple: true },
      junit: { type: 'string' },
      json: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: false,
  });
}
