import { parseArgs } from 'node:util';
import type { Binding } from './cases.js';
import { BINDINGS } from './cases.js';
import type { FuzzOptions } from './run-fuzz.js';

export const FUZZ_USAGE = `Usage: npm run fuzz -- [options]

Starts the example worker on free ports and sends it generated hostile requests
on JSON-RPC, REST and gRPC; prints one row per binding and exits 1 on any
INTERNAL/5xx, untyped answer, wrongful acceptance, hang or crash.

Options:
  --seed <n>          seed of the generators (default: 1); same seed, same requests
  --count <n>         requests per binding (default: 10000)
  --binding <name>    jsonrpc, rest or grpc; repeatable (default: all three)
  --case <n>          replay one case index only, printing the request and the answer
  --concurrency <n>   requests in flight at once (default: 8)
  --deadline-ms <ms>  per-request hang guard (default: 30000)
  --worker <path>     the worker's main.js to start (default: apps/worker/dist/main.js)
  -h, --help          show this help`;

export type FuzzCommand =
  | { readonly kind: 'run'; readonly options: Omit<FuzzOptions, 'log'> }
  | { readonly kind: 'help' };

function int(name: string, value: string | undefined, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min) {
    throw new Error(`${name} must be an integer of at least ${min}`);
  }
  return Number(value);
}

export function parseFuzzArgs(argv: readonly string[]): FuzzCommand {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      seed: { type: 'string' },
      count: { type: 'string' },
      binding: { type: 'string', multiple: true },
      case: { type: 'string' },
      concurrency: { type: 'string' },
      'deadline-ms': { type: 'string' },
      worker: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) return { kind: 'help' };
  const bindings = (values.binding ?? [...BINDINGS]).map((b) => {
    if (!(BINDINGS as readonly string[]).includes(b)) {
      throw new Error(`--binding must be one of ${BINDINGS.join(', ')}`);
    }
    return b as Binding;
  });
  const onlyCase = values.case === undefined ? undefined : int('--case', values.case, 0, 0);
  return {
    kind: 'run',
    options: {
      seed: int('--seed', values.seed, 1, 0),
      count: int('--count', values.count, 10_000, 1),
      bindings,
      concurrency: int('--concurrency', values.concurrency, 8, 1),
      deadlineMs: int('--deadline-ms', values['deadline-ms'], 30_000, 1),
      ...(onlyCase === undefined ? {} : { onlyCase }),
      ...(values.worker === undefined ? {} : { workerMain: values.worker }),
    },
  };
}
