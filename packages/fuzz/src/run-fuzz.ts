import type { Binding, FuzzCase, FuzzContext, GrpcCase, HttpCase } from './cases.js';
import { grpcCase } from './grpc-cases.js';
import { jsonRpcCase } from './json-rpc-cases.js';
import type { Outcome, OutcomeKind } from './outcome.js';
import { Rng } from './prng.js';
import { restCase } from './rest-cases.js';
import { GrpcSender } from './send-grpc.js';
import { HttpSender } from './send-http.js';
import type { Worker } from './worker-process.js';
import { createTasks, rssMiB, startWorker, stillServing, stopWorker } from './worker-process.js';

export interface FuzzOptions {
  readonly seed: number;
  /** Requests per binding. */
  readonly count: number;
  readonly bindings: readonly Binding[];
  /** Requests in flight at once. */
  readonly concurrency: number;
  /** Per-request deadline: an answer later than this is a hang (a hang guard, not a speed test). */
  readonly deadlineMs: number;
  /** Replays one case index only. */
  readonly onlyCase?: number;
  /** The worker's main.js (default: the built example worker). */
  readonly workerMain?: string;
  /** Progress and replay output. */
  readonly log?: (line: string) => void;
}

/** Requests that failed the same way: how many, and the first one to replay. */
export interface Finding {
  /** The first case index, for `--case`. */
  readonly index: number;
  readonly kind: string;
  readonly outcome: Outcome;
  /** Why the spec refuses the request, for a wrongful acceptance. */
  readonly mustRefuse?: string;
  /** How many requests of this kind failed this way. */
  count: number;
}

export interface BindingReport {
  readonly binding: Binding;
  sent: number;
  accepted: number;
  typed: number;
  internal: number;
  /** gRPC runtime answers to broken transport headers or frames (W15); not failures. */
  runtime: number;
  untyped: number;
  /** Connections closed without an answer (after an oversized body they may be). */
  closed: number;
  closedUnexpected: number;
  hangs: number;
  crashes: number;
  /** Requests the spec refuses that were accepted. */
  wronglyAccepted: number;
  rssBeforeMiB: number | undefined;
  rssAfterMiB: number | undefined;
  /** How the worker ended, if it did. */
  crash?: string;
  readonly findings: Finding[];
}

/** Failures: any of these makes the run fail. */
export function failures(r: BindingReport): number {
  return r.internal + r.untyped + r.closedUnexpected + r.hangs + r.crashes + r.wronglyAccepted;
}

const TASKS = 6;

export function caseOf(binding: Binding, seed: number, index: number, ctx: FuzzContext): FuzzCase {
  const rng = Rng.forCase(seed, binding, index);
  const withUnique = { ...ctx, unique: `${binding}${index}` };
  switch (binding) {
    case 'jsonrpc':
      return jsonRpcCase(rng, withUnique);
    case 'rest':
      return restCase(rng, withUnique);
    case 'grpc':
      return grpcCase(rng, withUnique);
  }
}

/** A case as text, for `--case` replays. */
export function describeCase(c: FuzzCase): string {
  const headers = Object.entries(c.headers)
    .map(([k, v]) => `${k}: ${v.length > 200 ? `${v.slice(0, 200)}…` : v}`)
    .join('\n');
  if ('method' in c) {
    const body = c.body === undefined ? '' : Buffer.from(c.body).toString('utf8');
    return `${c.method} ${c.path}\n${headers}\n\n${body.length > 2000 ? `${body.slice(0, 2000)}… (${body.length} bytes)` : body}`;
  }
  const hex = Buffer.from(c.body).toString('hex');
  return `POST ${c.path} (gRPC)\n${headers}\n\n${hex.length > 2000 ? `${hex.slice(0, 2000)}… (${c.body.length} bytes)` : hex}`;
}

function emptyReport(binding: Binding): BindingReport {
  return {
    binding,
    sent: 0,
    accepted: 0,
    typed: 0,
    internal: 0,
    runtime: 0,
    untyped: 0,
    closed: 0,
    closedUnexpected: 0,
    hangs: 0,
    crashes: 0,
    wronglyAccepted: 0,
    rssBeforeMiB: undefined,
    rssAfterMiB: undefined,
    findings: [],
  };
}

const COUNTER: Record<OutcomeKind, keyof BindingReport> = {
  accepted: 'accepted',
  typed: 'typed',
  internal: 'internal',
  runtime: 'runtime',
  untyped: 'untyped',
  closed: 'closed',
  hang: 'hangs',
};

async function fuzzBinding(
  worker: Worker,
  binding: Binding,
  taskIds: readonly string[],
  options: FuzzOptions,
): Promise<BindingReport> {
  const report = emptyReport(binding);
  report.rssBeforeMiB = rssMiB(worker);
  const http = new HttpSender(worker.httpBaseUrl, options.concurrency, options.deadlineMs);
  const grpc = new GrpcSender(worker.grpcAddress, options.deadlineMs);
  const byKind = new Map<string, Finding>();
  const note = (finding: Omit<Finding, 'count'>, category: string) => {
    const key = `${category} ${finding.kind} ${finding.outcome.detail.slice(0, 40)} ${finding.mustRefuse ?? ''}`;
    const seen = byKind.get(key);
    if (seen !== undefined) {
      seen.count += 1;
      return;
    }
    const first = { ...finding, count: 1 };
    byKind.set(key, first);
    report.findings.push(first);
  };
  const indexes =
    options.onlyCase === undefined
      ? Array.from({ length: options.count }, (_, i) => i)
      : [options.onlyCase];
  let next = 0;
  const ctx: FuzzContext = { taskIds, unique: '' };
  const lane = async (): Promise<void> => {
    while (next < indexes.length && worker.exit() === undefined) {
      const index = indexes[next] as number;
      next += 1;
      const c = caseOf(binding, options.seed, index, ctx);
      const sent =
        binding === 'grpc'
          ? await grpc.send(c as GrpcCase)
          : await http.send(c as HttpCase, binding);
      report.sent += 1;
      // W15: a runtime answer counts as such only for a request that sent the
      // transport header it answers; any other INTERNAL is the server's fault.
      const result =
        sent.kind === 'runtime' && !sendsTransportHeader(c)
          ? { ...sent, kind: 'internal' as const }
          : sent;
      if (options.onlyCase !== undefined) {
        options.log?.(
          `--- case ${index} (${binding}): ${c.kind}\n${describeCase(c)}\n--- ${result.kind}: ${result.detail}`,
        );
      }
      const counter = COUNTER[result.kind];
      (report[counter] as number) += 1;
      const finding = { index, kind: c.kind, outcome: result };
      if (result.kind === 'closed') {
        if (c.oversized === true) continue;
        // A closed connection is a crash when the worker is gone, not a finding of its own.
        if (worker.exit() !== undefined) continue;
        report.closedUnexpected += 1;
        note(finding, 'closed');
      } else if (result.kind === 'accepted' && c.mustRefuse !== undefined) {
        report.wronglyAccepted += 1;
        note({ ...finding, mustRefuse: c.mustRefuse }, 'accepted');
      } else if (
        result.kind !== 'accepted' &&
        result.kind !== 'typed' &&
        result.kind !== 'runtime'
      ) {
        note(finding, result.kind);
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, options.concurrency) }, lane));
  } finally {
    http.close();
    grpc.close();
  }
  const exit = worker.exit();
  if (exit !== undefined) {
    report.crashes = 1;
    report.crash = `${exit}; stderr: ${worker.stderrTail().slice(-600)}`;
  } else if (!(await stillServing(worker))) {
    report.hangs += 1;
    report.findings.push({
      index: -1,
      kind: 'after the run',
      outcome: { kind: 'hang', detail: 'the worker no longer answers its agent card' },
      count: 1,
    });
  }
  report.rssAfterMiB = rssMiB(worker);
  return report;
}

/** Whether a case sent one of the transport headers grpc-js answers itself (W15). */
function sendsTransportHeader(c: FuzzCase): boolean {
  return 'grpc-timeout' in c.headers || 'grpc-encoding' in c.headers;
}

/**
 * Starts a worker, fuzzes each binding in turn (a fresh worker after a crash),
 * and returns one report per binding.
 */
export async function runFuzz(options: FuzzOptions): Promise<BindingReport[]> {
  const reports: BindingReport[] = [];
  let worker = await startWorker(options.workerMain);
  try {
    let taskIds = await createTasks(worker, TASKS);
    for (const binding of options.bindings) {
      if (worker.exit() !== undefined) {
        worker = await startWorker(options.workerMain);
        taskIds = await createTasks(worker, TASKS);
      }
      options.log?.(
        `fuzzing ${binding}: ${options.onlyCase === undefined ? options.count : 1} requests, seed ${options.seed}`,
      );
      reports.push(await fuzzBinding(worker, binding, taskIds, options));
    }
  } finally {
    await stopWorker(worker);
  }
  return reports;
}
