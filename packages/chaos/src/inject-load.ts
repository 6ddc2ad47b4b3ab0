import { performance } from 'node:perf_hooks';
import type { Task } from '@a2a-js/sdk';
import type { Binding } from '@a2a-reminders/client';
import { BINDINGS, delegationRequest, reminderRequestOptions } from '@a2a-reminders/client';
import type { CallOutcome } from './calls.js';
import { messageOf, sdkErrorName, sleep, withDeadline } from './calls.js';
import type { TaskStream } from './task-stream.js';
import { subscribe } from './task-stream.js';
import type { Replica } from './worker-process.js';

export interface LoadOptions {
  /** Tasks kept running on each replica. */
  readonly tasksPerReplica: number;
  /** A lane's pause between two calls. */
  readonly pauseMs: number;
  /** Every call's deadline (a hang guard). */
  readonly deadlineMs: number;
  /**
   * Most injects sent to one task. Below R48's cap of retained final records
   * (128), so no acknowledged reminder is ever purged and every one must be listed.
   */
  readonly maxInjectsPerTask: number;
  /** Most calls of one lane in a row: the loop is bounded whatever happens. */
  readonly maxCallsPerLane: number;
  /** Most tasks created in a row, replacements included. */
  readonly maxTasks: number;
  /** Makes every reminder id and task text of the row its own. */
  readonly prefix: string;
}

/** A task the load created, and the stream kept open on the replica running it. */
export interface TrackedTask {
  readonly id: string;
  readonly replica: Replica;
  readonly binding: Binding;
  readonly stream: TaskStream;
  /** Injects sent to it (resends not counted). */
  injects: number;
  /**
   * An inject answered TASK_TERMINAL or TASK_NOT_FOUND, or its replica was
   * restarted (its execution went with the process): nothing more is sent to it.
   */
  ended: boolean;
}

/** One replica × binding: injects in a loop, and when it succeeded. */
export interface Lane {
  /** The replica it calls: the one it started with, or the one a fault restarted in its place. */
  replica: Replica;
  readonly binding: Binding;
  calls: number;
  successes: number;
  /** The first success of a call started at or after the fault's end: its answer's time. */
  recoveredAt: number | undefined;
  /** Successes of calls started at or after the fault's end. */
  successesAfterEnd: number;
}

/** A call past its deadline: what it was, and when it started (`performance.now()`). */
export interface Hang {
  readonly what: string;
  readonly startedAt: number;
}

/** A reminder whose answer was UNAVAILABLE or lost, sent again as it was (R69: a replay, R13). */
interface Resend {
  readonly task: TrackedTask;
  readonly reminder: { readonly id: string; readonly body: string; readonly ttlTurns: number };
  attempts: number;
}

/** Most times one reminder is sent again after an UNAVAILABLE answer or a hang. */
const MAX_RESENDS = 5;
/** Past a call's deadline, how long a pause waits for it to be counted: a hang guard. */
const WAIT_SLACK_MS = 10_000;

/**
 * The load under which each fault runs: tasks on every replica, each
 * followed by a SubscribeToTask stream on its replica; one lane per replica
 * and binding injecting reminders with ids of our own into any running task
 * (R55: any replica answers for any task); a keeper that replaces tasks that
 * end, so there is always something to inject into once the store is back.
 */
export class InjectLoad {
  readonly tasks: TrackedTask[] = [];
  /** Reminder id → task id, for every inject answered with success. */
  readonly acked = new Map<string, string>();
  /** Reminder rpc errors by code. */
  readonly errors = new Map<string, number>();
  /** The first message of each code, for the report. */
  readonly errorSamples = new Map<string, string>();
  /** Stock SDK calls (SendMessage, SubscribeToTask) that failed, by error name. */
  readonly sdkErrors = new Map<string, number>();
  readonly sdkErrorSamples = new Map<string, string>();
  readonly hangs: Hang[] = [];
  readonly lanes: Lane[];
  readonly #replicas: Replica[];
  /** A replica a fault restarted → the one started in its place. */
  readonly #replacements = new Map<Replica, Replica>();
  readonly #options: LoadOptions;
  #stopping = false;
  /** Set while a fault holds the load: no call is sent until it resumes. */
  #paused = false;
  #resumed: Promise<void> = Promise.resolve();
  #release: () => void = () => {};
  /** Calls sent and not yet answered (or past their deadline). */
  #inFlight = 0;
  #faultStart: number | undefined;
  #faultEnd: number | undefined;
  #running: Promise<void>[] = [];
  #attempt = 0;
  #created = 0;

  constructor(replicas: readonly Replica[], options: LoadOptions) {
    this.#replicas = [...replicas];
    this.#options = options;
    this.lanes = replicas.flatMap((replica) =>
      BINDINGS.map((binding) => ({
        replica,
        binding,
        calls: 0,
        successes: 0,
        recoveredAt: undefined,
        successesAfterEnd: 0,
      })),
    );
  }

  /** Creates the tasks and starts the keeper and the lanes once every replica runs its share. */
  async start(readyDeadlineMs: number): Promise<void> {
    this.#running.push(this.#keep());
    await this.#until(
      () => this.#replicas.every((r) => this.#usableOn(r) >= this.#options.tasksPerReplica),
      readyDeadlineMs,
      `${this.#options.tasksPerReplica} running task(s) with an open stream on every replica`,
    );
    for (const lane of this.lanes) this.#running.push(this.#inject(lane));
  }

  /** Resolves once every lane had `count` successes (before the fault: the load works). */
  warm(count: number, deadlineMs: number): Promise<void> {
    return this.#until(
      () => this.lanes.every((l) => l.successes >= count),
      deadlineMs,
      `${count} acknowledged inject(s) on every replica and binding`,
    );
  }

  /** The fault is being applied from `at` (`performance.now()`), for the report's times. */
  faultStarted(at: number): void {
    this.#faultStart = at;
  }

  /** When a call started, relative to the fault, for the report. */
  sinceFault(at: number): string {
    const start = this.#faultStart;
    if (start === undefined) return 'before the fault';
    const s = ((at - start) / 1000).toFixed(1);
    return at < start ? `${s.slice(1)} s before the fault` : `${s} s after the fault began`;
  }

  /** The fault was lifted at `at` (`performance.now()`): recovery is measured from there. */
  faultEnded(at: number): void {
    this.#faultEnd = at;
  }

  /**
   * Resolves once every lane had `count` successes of calls started after
   * the fault's end, or the deadline passed (the lanes that did not are
   * reported as never recovered).
   */
  async recovered(count: number, deadlineMs: number): Promise<void> {
    await this.#until(
      () => this.lanes.every((l) => l.successesAfterEnd >= count),
      deadlineMs,
      undefined,
    );
  }

  /**
   * Holds every call not yet sent and resolves once none is in flight: a
   * fault that stops a worker on purpose (an operator's restart) first takes
   * it out of the load, as a load balancer would drain it, so no call meets
   * a process that is going away. Calls in flight end by their deadline.
   */
  async pause(): Promise<void> {
    if (!this.#paused) {
      this.#paused = true;
      this.#resumed = new Promise((resolve) => {
        this.#release = resolve;
      });
    }
    await this.#until(
      () => this.#inFlight === 0,
      this.#options.deadlineMs + WAIT_SLACK_MS,
      'every call in flight answered or past its deadline',
    );
  }

  /**
   * Sends again after {@link pause}; each replica in `replaced` is called
   * through the one started in its place from now on, and its tasks are left
   * (their executions ended with its process). A no-op when not paused and
   * nothing was replaced.
   */
  resume(replaced: ReadonlyMap<Replica, Replica> = new Map()): void {
    for (const [old, next] of replaced) {
      this.#replacements.set(old, next);
      for (const [i, replica] of this.#replicas.entries()) {
        if (replica === old) this.#replicas[i] = next;
      }
      for (const lane of this.lanes) if (lane.replica === old) lane.replica = next;
      for (const task of this.tasks) if (task.replica === old) task.ended = true;
    }
    if (!this.#paused) return;
    this.#paused = false;
    this.#release();
  }

  /** The replicas the load calls now: those it started with, or those started in their place. */
  get replicas(): readonly Replica[] {
    return this.#replicas;
  }

  /** The replica serving in `replica`'s place now (itself unless a fault restarted it). */
  replicaNow(replica: Replica): Replica {
    let now = replica;
    // Bounded: each replacement is a new process, so the chain has no cycle.
    for (let next = this.#replacements.get(now); next !== undefined; ) {
      now = next;
      next = this.#replacements.get(now);
    }
    return now;
  }

  /** Stops the lanes and the keeper; waits for their calls in flight (each under its deadline). */
  async stop(): Promise<void> {
    this.#stopping = true;
    this.#paused = false;
    this.#release();
    await Promise.all(this.#running);
  }

  /** Resolves once the load is not paused (or is stopping). */
  async #gate(): Promise<void> {
    while (this.#paused && !this.#stopping) await this.#resumed;
  }

  /** Times to recover, in ms from the fault's end, of the lanes that recovered. */
  recoveryTimes(): number[] {
    const end = this.#faultEnd;
    if (end === undefined) return [];
    return this.lanes.flatMap((l) => (l.recoveredAt === undefined ? [] : [l.recoveredAt - end]));
  }

  /** Lanes with no success after the fault's end, as `A/grpc`. */
  unrecovered(): string[] {
    return this.lanes
      .filter((l) => l.recoveredAt === undefined)
      .map((l) => `${l.replica.name}/${l.binding}`);
  }

  #usable(task: TrackedTask): boolean {
    return (
      !task.ended &&
      task.stream.opened() &&
      !task.stream.closed() &&
      task.injects < this.#options.maxInjectsPerTask
    );
  }

  #usableOn(replica: Replica): number {
    return this.tasks.filter((t) => t.replica === replica && this.#usable(t)).length;
  }

  async #until(done: () => boolean, deadlineMs: number, what: string | undefined): Promise<void> {
    const deadline = performance.now() + deadlineMs;
    while (!done()) {
      if (performance.now() > deadline) {
        if (what === undefined) return;
        throw new Error(`not reached within ${deadlineMs} ms: ${what}`);
      }
      await sleep(50);
    }
  }

  /**
   * Keeps `tasksPerReplica` usable tasks on every live replica: at most
   * `maxTasks` created, and ten times as many attempts, a failed one followed
   * by a pause (the store may be down).
   */
  async #keep(): Promise<void> {
    let attempts = 0;
    const maxAttempts = this.#options.maxTasks * 10;
    while (!this.#stopping && attempts < maxAttempts && this.#created < this.#options.maxTasks) {
      for (const [i] of this.#replicas.entries()) {
        await this.#gate();
        // Read after the gate: a restart while paused put another replica in this place.
        const replica = this.#replicas[i];
        if (replica === undefined) continue;
        if (this.#stopping || this.#created >= this.#options.maxTasks) break;
        if (!replica.alive() || this.#usableOn(replica) >= this.#options.tasksPerReplica) continue;
        attempts += 1;
        this.#inFlight += 1;
        let created: boolean;
        try {
          created = await this.#createTask(replica);
        } finally {
          this.#inFlight -= 1;
        }
        if (!created) await sleep(1_000);
      }
      await sleep(250);
    }
  }

  /** Starts a task on `replica` and subscribes to it there; whether its stream opened. */
  async #createTask(replica: Replica): Promise<boolean> {
    const n = this.#attempt;
    this.#attempt += 1;
    const binding = BINDINGS[n % BINDINGS.length] ?? 'jsonrpc';
    const { client } = replica.connections[binding];
    // No words the scripted model reacts to (budget, cost, merge, CI): it runs until cancelled.
    const text = `Port module ${this.#options.prefix}-${n} to the new parser`;
    const sent = await withDeadline(
      this.#options.deadlineMs,
      (signal) => client.sendMessage(delegationRequest(text), reminderRequestOptions({}, signal)),
      sdkErrorName,
    );
    if (!this.#noteSdk(`SendMessage on ${replica.name}/${binding}`, sent)) return false;
    if (sent.kind !== 'ok' || !('status' in sent.value)) return false;
    const task = sent.value as Task;
    this.#created += 1;
    const stream = subscribe(client, task.id);
    this.tasks.push({ id: task.id, replica, binding, stream, injects: 0, ended: false });
    let timer: NodeJS.Timeout | undefined;
    const opened = await Promise.race([
      stream.ready.then(
        () => true,
        () => false,
      ),
      new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), this.#options.deadlineMs);
      }),
    ]);
    clearTimeout(timer);
    if (opened === true) return true;
    if (opened === undefined) {
      this.hangs.push({
        what: `SubscribeToTask ${task.id} on ${replica.name}/${binding}`,
        startedAt: sent.endedAt,
      });
      stream.abort();
    } else {
      this.#count(
        this.sdkErrors,
        this.sdkErrorSamples,
        sdkErrorName(stream.error()),
        `SubscribeToTask on ${replica.name}/${binding}: ${messageOf(stream.error())}`,
      );
    }
    return false;
  }

  /** Counts a stock SDK call's failure; whether it succeeded. */
  #noteSdk(what: string, outcome: CallOutcome<unknown>): boolean {
    if (outcome.kind === 'hung') {
      this.hangs.push({ what, startedAt: outcome.startedAt });
      return false;
    }
    if (outcome.kind === 'error') {
      this.#count(
        this.sdkErrors,
        this.sdkErrorSamples,
        outcome.code,
        `${what}: ${outcome.message}`,
      );
      return false;
    }
    return true;
  }

  #count(
    counts: Map<string, number>,
    samples: Map<string, string>,
    code: string,
    message: string,
  ): void {
    counts.set(code, (counts.get(code) ?? 0) + 1);
    if (!samples.has(code)) samples.set(code, message);
  }

  /** Picks the next usable task for a lane, round robin over every replica's tasks. */
  #pick(lane: Lane, turn: number): TrackedTask | undefined {
    const usable = this.tasks.filter((t) => this.#usable(t));
    if (usable.length === 0) return undefined;
    const offset = this.lanes.indexOf(lane);
    return usable[(offset + turn) % usable.length];
  }

  async #inject(lane: Lane): Promise<void> {
    const { binding } = lane;
    let resend: Resend | undefined;
    let serial = 0;
    // Bounded: every pass either calls or sleeps, and both count (a pause does not).
    for (let pass = 0; !this.#stopping && pass < this.#options.maxCallsPerLane * 4; pass += 1) {
      await this.#gate();
      if (this.#stopping) break;
      // Read after the gate: a restart while paused put another replica in the lane's place.
      const { replica } = lane;
      const client = replica.connections[binding].reminders;
      if (lane.calls >= this.#options.maxCallsPerLane) break;
      if (resend?.task.ended) resend = undefined;
      const task = resend?.task ?? this.#pick(lane, pass);
      if (task === undefined) {
        await sleep(this.#options.pauseMs);
        continue;
      }
      const reminder = resend?.reminder ?? {
        id: `${this.#options.prefix}-${replica.name}-${binding}-${serial}`,
        // Neutral text: the scripted model reacts to merges, CI and budgets.
        body: `Chaos note ${serial} from ${replica.name} over ${binding}.`,
        // One turn: each reminder ends at the next turn but one, keeping the live quota free.
        ttlTurns: 1,
      };
      if (resend === undefined) {
        serial += 1;
        task.injects += 1;
      }
      // withDeadline never rejects: every outcome is a value.
      this.#inFlight += 1;
      const outcome = await withDeadline(this.#options.deadlineMs, (signal) =>
        client.injectTaskReminder({ taskId: task.id, reminder }, { signal }),
      );
      this.#inFlight -= 1;
      lane.calls += 1;
      const what = `InjectTaskReminder ${reminder.id} on ${replica.name}/${binding}`;
      if (outcome.kind === 'ok') {
        this.acked.set(reminder.id, task.id);
        lane.successes += 1;
        if (this.#faultEnd !== undefined && outcome.startedAt >= this.#faultEnd) {
          lane.successesAfterEnd += 1;
          lane.recoveredAt ??= outcome.endedAt;
        }
        resend = undefined;
      } else {
        if (outcome.kind === 'hung') {
          this.hangs.push({ what, startedAt: outcome.startedAt });
        } else {
          this.#count(this.errors, this.errorSamples, outcome.code, `${what}: ${outcome.message}`);
          if (outcome.code === 'TASK_TERMINAL' || outcome.code === 'TASK_NOT_FOUND') {
            task.ended = true;
          }
        }
        // R69: a failure that may have committed is left to the caller, whose resend with
        // the same id is a replay (R13) or is accepted, never applied twice.
        const again =
          outcome.kind === 'hung' || (outcome.kind === 'error' && outcome.code === 'UNAVAILABLE');
        if (again && !task.ended) {
          resend ??= { task, reminder, attempts: 0 };
          resend.attempts += 1;
          if (resend.attempts > MAX_RESENDS) resend = undefined;
        } else {
          resend = undefined;
        }
      }
      await sleep(this.#options.pauseMs);
    }
  }
}
