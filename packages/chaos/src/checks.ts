import { performance } from 'node:perf_hooks';
import type { Task } from '@a2a-js/sdk';
import { TaskState } from '@a2a-js/sdk';
import type { Binding } from '@a2a-reminders/client';
import { BINDINGS, reminderRequestOptions } from '@a2a-reminders/client';
import { defaultReminderLimits, reminderPages } from '@a2a-reminders/core';
import type { TaskReminderEvent, TaskReminderRecord } from '@a2a-reminders/proto';
import { ReminderState, TaskReminderEventSchema } from '@a2a-reminders/proto';
import { toJsonString } from '@bufbuild/protobuf';
import { messageOf, reminderErrorCode, sdkErrorName, sleep, withDeadline } from './calls.js';
import type { Deployment, LeaseRow, OpenTask } from './deployment.js';
import type { InjectLoad, TrackedTask } from './inject-load.js';
import type { Replica } from './worker-process.js';

/** What the listings and the streams of a row's tasks showed. */
export interface Verdict {
  /** Acknowledged reminders some replica does not list, and R48 did not purge. */
  readonly lost: string[];
  /** Acknowledged reminders not listed because R48 purged them (their task at its cap). */
  readonly purged: string[];
  /** A reminder id listed twice, or an event twice on a stream. */
  readonly duplicates: string[];
  /** Streams whose events are not the task's log in commit order (R52): reordered, gaps, no end. */
  readonly misordered: string[];
  /** What could not be read (a listing or a log that failed). */
  readonly problems: string[];
}

/** A task found open when it should not be, and what each replica and the lease table say of it. */
export interface OpenTaskFinding {
  readonly id: string;
  readonly detail: string;
}

/** What {@link findStuck} found. */
export interface StuckFindings {
  /** Stored SUBMITTED or WORKING past the bound with no live execution (R53, R72). */
  readonly stuck: OpenTaskFinding[];
  /** Stored WORKING past the bound, not moving on, while its execution runs and holds the lease. */
  readonly frozen: OpenTaskFinding[];
  /** Tasks an earlier row reported that are still open (not counted again). */
  readonly leftOver: string[];
}

/** Tasks seen across the rows of one deployment: where each was followed, which were reported. */
export class TaskHistory {
  readonly #followed = new Map<string, string>();
  readonly #reported = new Set<string>();

  follow(taskId: string, where: string): void {
    this.#followed.set(taskId, where);
  }

  followedIn(taskId: string): string | undefined {
    return this.#followed.get(taskId);
  }

  report(taskId: string): void {
    this.#reported.add(taskId);
  }

  reported(taskId: string): boolean {
    return this.#reported.has(taskId);
  }
}

const FINAL_STATES = new Set([
  ReminderState.EXPIRED,
  ReminderState.DISPLACED,
  ReminderState.CANCELLED,
  ReminderState.DROPPED,
]);

/** Reads the open tasks and the leases; undefined while the database cannot be read. */
async function readOpen(
  deployment: Deployment,
  history: TaskHistory,
): Promise<{ open: OpenTask[]; leases: LeaseRow[]; leftOver: string[] } | undefined> {
  try {
    const all = await deployment.openTasks();
    return {
      open: all.filter((t) => !history.reported(t.id)),
      leases: await deployment.leases(),
      leftOver: all.filter((t) => history.reported(t.id)).map((t) => t.id),
    };
  } catch {
    return undefined;
  }
}

/**
 * Waits until every task the database stores SUBMITTED or WORKING shows a
 * live execution (its stored status moves on, turn after turn, and on
 * PostgreSQL a running lease of a live replica holds it, R53) or ends.
 * Those still open without one once `bound + slack` has passed since the
 * store came back are stuck: R72 (grace + lease + reap interval) bounds how
 * long a task may stay WORKING after its execution returned, R53 (lease +
 * reap interval) after its replica stopped heartbeating; the slack is for
 * the two steps of ending it on a busy machine. One whose execution still
 * runs but whose stored status no longer moves is frozen.
 */
export async function findStuck(
  deployment: Deployment,
  load: InjectLoad,
  history: TaskHistory,
  slackMs: number,
): Promise<StuckFindings> {
  const deadline = performance.now() + deployment.stuckBoundMs + slackMs;
  const firstSeen = new Map<string, number>();
  const moving = new Set<string>();
  let last: { open: OpenTask[]; leases: LeaseRow[]; leftOver: string[] } = {
    open: [],
    leases: [],
    leftOver: [],
  };
  // Bounded: one pass every half second until the deadline, whatever the reads do.
  const passes = Math.ceil((deployment.stuckBoundMs + slackMs) / 500) + 1;
  for (let pass = 0; pass < passes; pass += 1) {
    const read = await readOpen(deployment, history);
    if (read !== undefined) {
      last = read;
      for (const task of last.open) {
        const first = firstSeen.get(task.id);
        if (first === undefined) firstSeen.set(task.id, task.updatedMs);
        else if (task.updatedMs > first && hasLiveExecution(task, deployment, load, last.leases)) {
          moving.add(task.id);
        }
      }
      if (last.open.every((t) => moving.has(t.id))) {
        return { stuck: [], frozen: [], leftOver: last.leftOver };
      }
    }
    if (performance.now() > deadline) break;
    await sleep(500);
  }
  const stuck: OpenTaskFinding[] = [];
  const frozen: OpenTaskFinding[] = [];
  for (const task of last.open.filter((t) => !moving.has(t.id))) {
    const finding = {
      id: task.id,
      detail: await describeOpenTask(task, deployment, load, history, last.leases),
    };
    if (hasLiveExecution(task, deployment, load, last.leases)) frozen.push(finding);
    else stuck.push(finding);
  }
  return { stuck, frozen, leftOver: last.leftOver };
}

/**
 * After every open task was cancelled on its replica: each execution
 * returned, so R72 bounds how long its task may stay open (stored in its
 * last state, or ended FAILED, within grace + lease + reap interval of the
 * return). Those still open after that and the slack are stuck.
 */
export async function settleAfterCancel(
  deployment: Deployment,
  load: InjectLoad,
  history: TaskHistory,
  slackMs: number,
): Promise<OpenTaskFinding[]> {
  const deadline = performance.now() + deployment.stuckBoundMs + slackMs;
  let last: { open: OpenTask[]; leases: LeaseRow[] } | undefined;
  const passes = Math.ceil((deployment.stuckBoundMs + slackMs) / 250) + 1;
  for (let pass = 0; pass < passes; pass += 1) {
    last = (await readOpen(deployment, history)) ?? last;
    if (last?.open.length === 0) return [];
    if (performance.now() > deadline) break;
    await sleep(250);
  }
  const open = last?.open ?? [];
  return Promise.all(
    open.map(async (task) => ({
      id: task.id,
      detail: `did not end after CancelTask: ${await describeOpenTask(task, deployment, load, history, last?.leases ?? [])}`,
    })),
  );
}

/**
 * Whether the task's execution is alive: on PostgreSQL a lease under a
 * running execution's name (not a hand-over's or a fence's, which end in
 * `)`), unexpired on the database's clock, of a replica whose process runs;
 * for a task this run follows, its stream on that replica still open.
 */
function hasLiveExecution(
  task: OpenTask,
  deployment: Deployment,
  load: InjectLoad,
  leases: readonly LeaseRow[],
): boolean {
  const tracked = load.tasks.find((t) => t.id === task.id);
  if (tracked?.stream.closed()) return false;
  if (deployment.store === 'sqlite') return deployment.replicas.every((r) => r.alive());
  const lease = leases.find((l) => l.taskId === task.id);
  if (lease === undefined || lease.holder.endsWith(')') || lease.expiresInMs <= 0) return false;
  const replica = replicaOfHolder(deployment.replicas, lease.holder);
  return replica?.alive() === true;
}

/** The replica a lease holder names: `<replica id>#<suffix>` (R53). */
export function replicaOfHolder(replicas: readonly Replica[], holder: string): Replica | undefined {
  const name = holder.split('#')[0];
  return replicas.find((r) => r.name === name);
}

/** The task as each replica reads it (GetTask), its stored status and its lease, for the report. */
async function describeOpenTask(
  task: OpenTask,
  deployment: Deployment,
  load: InjectLoad,
  history: TaskHistory,
  leases: readonly LeaseRow[],
): Promise<string> {
  const states: string[] = [];
  for (const replica of deployment.replicas) {
    const got = await withDeadline(
      30_000,
      (signal) =>
        replica.connections.jsonrpc.client.getTask(
          { tenant: '', id: task.id, historyLength: 0 },
          reminderRequestOptions({}, signal),
        ),
      sdkErrorName,
    );
    states.push(
      `${replica.name}: ${got.kind === 'ok' ? stateName((got.value as Task).status?.state) : got.kind === 'hung' ? 'no answer' : got.code}`,
    );
  }
  const lease = leases.find((l) => l.taskId === task.id);
  const tracked = load.tasks.find((t) => t.id === task.id);
  const leaseText =
    deployment.store === 'sqlite'
      ? ''
      : lease === undefined
        ? '; no lease'
        : `; lease ${lease.holder}, expires in ${lease.expiresInMs} ms`;
  const earlier = history.followedIn(task.id);
  const streamText =
    tracked !== undefined
      ? `; ran on ${tracked.replica.name}, its stream ${tracked.stream.closed() ? 'ended' : 'open'}`
      : earlier !== undefined
        ? `; followed in ${earlier}`
        : '; never followed (a SendMessage whose answer was lost)';
  return `task ${task.id} stored ${task.state}, status last updated ${Math.round(Date.now() - task.updatedMs)} ms ago; GetTask ${states.join(', ')}${leaseText}${streamText}`;
}

export function stateName(state: TaskState | undefined): string {
  return state === undefined
    ? 'none'
    : (TaskState[state] ?? String(state)).replace('TASK_STATE_', '');
}

/**
 * Cancels every task still stored open (but those an earlier row reported)
 * on the replica running it (a stock CancelTask elsewhere would not reach the
 * execution, spec §14), and waits for the followed streams to end. Returns
 * what went wrong, for the notes.
 */
export async function endTasks(
  deployment: Deployment,
  load: InjectLoad,
  history: TaskHistory,
  deadlineMs: number,
): Promise<string[]> {
  const notes: string[] = [];
  let open: OpenTask[] = [];
  let leases: LeaseRow[] = [];
  try {
    open = await deployment.openTasks();
    leases = await deployment.leases();
  } catch (error) {
    notes.push(`could not read the open tasks to cancel them: ${messageOf(error)}`);
  }
  // A task an earlier row reported was cancelled then; its refusal is not repeated here.
  for (const task of open.filter((t) => !history.reported(t.id))) {
    const tracked = load.tasks.find((t) => t.id === task.id);
    const lease = leases.find((l) => l.taskId === task.id);
    // A task whose replica a fault restarted is cancelled on the one now in its place.
    const replica =
      (tracked === undefined ? undefined : load.replicaNow(tracked.replica)) ??
      (lease === undefined ? undefined : replicaOfHolder(deployment.replicas, lease.holder)) ??
      deployment.replicas[0];
    if (replica === undefined || !replica.alive()) continue;
    const binding: Binding = tracked?.binding ?? 'rest';
    const cancelled = await withDeadline(
      deadlineMs,
      (signal) =>
        replica.connections[binding].client.cancelTask(
          { tenant: '', id: task.id, metadata: undefined },
          reminderRequestOptions({}, signal),
        ),
      sdkErrorName,
    );
    if (cancelled.kind !== 'ok') {
      notes.push(
        `CancelTask ${task.id} on ${replica.name}/${binding}: ${cancelled.kind === 'hung' ? 'no answer' : `${cancelled.code}: ${cancelled.message}`}`,
      );
    }
  }
  const deadline = performance.now() + deadlineMs;
  for (const task of load.tasks) {
    while (!task.stream.closed() && performance.now() < deadline) await sleep(50);
    if (!task.stream.closed()) {
      notes.push(`the stream of task ${task.id} on ${task.replica.name} did not end`);
      task.stream.abort();
    }
  }
  return notes;
}

/**
 * How the row's tasks ended, as the replica that ran each reads it (or the
 * one a fault started in its place): a count per state, with the status
 * message of the first of each state other than the CANCELED our own cancel
 * leaves.
 */
export async function taskOutcomes(load: InjectLoad, deadlineMs: number): Promise<string> {
  const counts = new Map<string, number>();
  const samples = new Map<string, string>();
  for (const task of load.tasks) {
    const replica = load.replicaNow(task.replica);
    const got = await withDeadline(
      deadlineMs,
      (signal) =>
        replica.connections.jsonrpc.client.getTask(
          { tenant: '', id: task.id, historyLength: 0 },
          reminderRequestOptions({}, signal),
        ),
      sdkErrorName,
    );
    let state: string;
    if (got.kind === 'ok') {
      const status = (got.value as Task).status;
      state = stateName(status?.state);
      const part = status?.message?.parts[0]?.content;
      if (state !== 'CANCELED' && !samples.has(state) && part?.$case === 'text') {
        samples.set(state, part.value);
      }
    } else {
      state = got.kind === 'hung' ? 'GetTask hung' : `GetTask ${got.code}`;
    }
    counts.set(state, (counts.get(state) ?? 0) + 1);
  }
  return [...counts]
    .map(([state, n]) => {
      const sample = samples.get(state);
      return sample === undefined ? `${n} ${state}` : `${n} ${state} ("${sample}")`;
    })
    .join(', ');
}

/** Every page of a task's records from one replica over one binding (R49). */
async function listAll(
  replica: Replica,
  binding: Binding,
  taskId: string,
  deadlineMs: number,
): Promise<TaskReminderRecord[]> {
  const records: TaskReminderRecord[] = [];
  const signal = AbortSignal.timeout(deadlineMs);
  for await (const page of reminderPages(
    replica.connections[binding].reminders,
    { taskId, pageSize: 100 },
    { signal },
  )) {
    records.push(...page.reminders);
  }
  return records;
}

/**
 * Lists every task the row followed from every replica (each over another
 * binding, R55) and compares with what was acknowledged; compares each
 * task's stream with its log.
 */
export async function verify(
  deployment: Deployment,
  load: InjectLoad,
  rowIndex: number,
  deadlineMs: number,
): Promise<Verdict> {
  /** Reminder id → where it is missing, as `task …, not listed by A/rest, B/grpc`. */
  const lost = new Map<string, { taskId: string; by: string[] }>();
  const purged = new Set<string>();
  const duplicates: string[] = [];
  const misordered: string[] = [];
  const problems: string[] = [];
  const ackedBy = new Map<string, string[]>();
  for (const [id, taskId] of load.acked) {
    const list = ackedBy.get(taskId) ?? [];
    list.push(id);
    ackedBy.set(taskId, list);
  }
  for (const task of load.tasks) {
    const acked = ackedBy.get(task.id) ?? [];
    let listed: TaskReminderRecord[] | undefined;
    for (const [i, replica] of deployment.replicas.entries()) {
      if (!replica.alive()) continue;
      const binding = BINDINGS[(i + rowIndex) % BINDINGS.length] ?? 'rest';
      let records: TaskReminderRecord[];
      let where = `${replica.name}/${binding}`;
      try {
        records = await listAll(replica, binding, task.id, deadlineMs);
      } catch (error) {
        problems.push(`ListTaskReminders ${task.id} on ${where}: ${messageOf(error)}`);
        // The store no longer has the task the load started (a disk that dropped what it had
        // not synced): it lists none of its records, so every one acknowledged is lost.
        if (reminderErrorCode(error) !== 'TASK_NOT_FOUND') continue;
        records = [];
        where = `${where} (task not found)`;
      }
      listed ??= records;
      const ids = records.map((r) => r.reminder?.id ?? '');
      const seen = new Set<string>();
      for (const id of ids) {
        if (seen.has(id)) duplicates.push(`${id} listed twice by ${replica.name}/${binding}`);
        seen.add(id);
      }
      const finals = records.filter((r) => FINAL_STATES.has(r.state)).length;
      const atCap = finals >= defaultReminderLimits.maxRetainedFinalRemindersPerTask;
      for (const id of acked) {
        if (seen.has(id)) continue;
        if (atCap) {
          purged.add(id);
          continue;
        }
        const missing = lost.get(id) ?? { taskId: task.id, by: [] };
        missing.by.push(where);
        lost.set(id, missing);
      }
    }
    duplicates.push(...streamDuplicates(task));
    const fate = fateProblem(task, listed);
    if (fate !== undefined) misordered.push(fate);
    try {
      const log = await deployment.eventLog(task.id);
      const order = log === undefined ? undefined : orderProblem(task, log);
      if (order !== undefined && fate === undefined) misordered.push(order);
    } catch (error) {
      problems.push(`the event log of ${task.id}: ${messageOf(error)}`);
    }
  }
  return {
    lost: [...lost].map(([id, m]) => `${id} (task ${m.taskId}, not listed by ${m.by.join(', ')})`),
    purged: [...purged],
    duplicates,
    misordered,
    problems,
  };
}

/** An event that came twice on a task's stream: a reminder emitted twice, or two fates. */
function streamDuplicates(task: TrackedTask): string[] {
  const seen = new Set<string>();
  const twice: string[] = [];
  for (const event of task.stream.events) {
    const key = `${event.reminderId} ${event.event.case ?? '?'}`;
    if (seen.has(key)) {
      twice.push(`${key} twice on the stream of ${task.id} on ${task.replica.name}`);
    }
    seen.add(key);
  }
  return twice;
}

/** The event that announces each final state (R18). */
const FINAL_EVENT_OF_STATE = new Map<ReminderState, string>([
  [ReminderState.EXPIRED, 'expired'],
  [ReminderState.DISPLACED, 'displaced'],
  [ReminderState.CANCELLED, 'cancelled'],
  [ReminderState.DROPPED, 'dropped'],
]);

/**
 * Each reminder's events on the task's stream, in the order they came
 * (R18, R22, R27): `emitted` at most once and first, at most one final
 * event, nothing after it. A stream our cancel ended ran to the task's end,
 * so it carries the final event of every record listed, and that event
 * names the record's state.
 */
function fateProblem(
  task: TrackedTask,
  records: readonly TaskReminderRecord[] | undefined,
): string | undefined {
  const where = `task ${task.id} on ${task.replica.name}`;
  const byId = new Map<string, string[]>();
  for (const event of task.stream.events) {
    const kinds = byId.get(event.reminderId) ?? [];
    kinds.push(event.event.case ?? '?');
    byId.set(event.reminderId, kinds);
  }
  for (const [id, kinds] of byId) {
    const emitted = kinds.indexOf('emitted');
    // Distinct: an event repeated is a duplicate (its own column), not an order problem.
    const finals = [...new Set(kinds.filter((k) => k !== 'emitted' && k !== 'forward'))];
    if (emitted > 0 || finals.length > 1 || (finals.length === 1 && kinds.at(-1) !== finals[0])) {
      return `${where}: ${id}'s events came as ${kinds.join(', ')}`;
    }
  }
  if (task.stream.state() !== TaskState.TASK_STATE_CANCELED || records === undefined) {
    return undefined;
  }
  for (const record of records) {
    const id = record.reminder?.id ?? '';
    const expected = FINAL_EVENT_OF_STATE.get(record.state);
    const kinds = byId.get(id) ?? [];
    if (expected === undefined) {
      return `${where}: ${id} is listed ${ReminderState[record.state]} after the task ended CANCELED`;
    }
    if (!kinds.includes(expected)) {
      return `${where}: the stream ended CANCELED without ${id}'s ${expected} event (its events: ${kinds.join(', ') || 'none'})`;
    }
  }
  return undefined;
}

/**
 * R52: a stream carries the task's batches exactly once, in commit order,
 * from the execution's start (the stream opened before the first inject)
 * until it ends: its events are the log's, from the first, with no gap. A
 * stream ended by our cancel ran to the task's end, so it carries the whole
 * log; one ended earlier (its execution stopped under a fault, R71) a prefix.
 */
function orderProblem(task: TrackedTask, log: readonly TaskReminderEvent[]): string | undefined {
  const text = (e: TaskReminderEvent) => toJsonString(TaskReminderEventSchema, e);
  const streamed = task.stream.events.map(text);
  const logged = log.map(text);
  const where = `task ${task.id} on ${task.replica.name}`;
  for (const [i, event] of streamed.entries()) {
    if (logged[i] !== event) {
      const at = logged.indexOf(event);
      return `${where}: stream event ${i + 1} of ${streamed.length} is log event ${at < 0 ? 'none' : at + 1} of ${logged.length} (${task.stream.events[i]?.reminderId} ${task.stream.events[i]?.event.case})`;
    }
  }
  const cancelledByUs = task.stream.state() === TaskState.TASK_STATE_CANCELED;
  if (cancelledByUs && streamed.length < logged.length) {
    return `${where}: the stream ended CANCELED after ${streamed.length} of the log's ${logged.length} events`;
  }
  return undefined;
}
