import type { ExecutionEventBus } from '@a2a-js/sdk/server';
import type { TaskReminder, TaskReminderEvent, TaskReminderRecord } from '@a2a-reminders/proto';
import { ReminderState } from '@a2a-reminders/proto';
import type { ReminderClient } from './client.js';
import { reminderPages } from './client.js';
import type { ReminderErrorCode } from './errors.js';
import { ReminderError } from './errors.js';
import { forwardEvent } from './events.js';
import type { StatusFallback } from './publisher.js';
import { recordWith } from './record-with.js';
import { turnsRemainingOf } from './records.js';
import type { ReminderContent } from './reminder-content.js';
import { reminderOf } from './reminder-content.js';
import type { ReminderSteps } from './reminder-steps.js';
import type {
  ReminderStoreKey,
  StoredForward,
  StoredReminder,
  StoredReminderState,
} from './store.js';
import { isLiveState } from './store.js';
import { reminderBatchOf } from './stream-events.js';
import { refusedCharacters } from './text-rules.js';
import { MAX_HOP_TASK_ID_CHARS, MAX_SOURCE_CHARS } from './validation.js';

/** What a forwarding needs of the sub-task's agent: a binding package's reminder client. */
export type ForwardingClient = Pick<
  ReminderClient,
  'injectTaskReminder' | 'cancelTaskReminder' | 'listTaskReminders'
>;

export interface ForwardRemindersOptions {
  /** The reminder client of the agent that runs the sub-task. */
  readonly client: ForwardingClient;
  /** The sub-task's id, as that agent names it. */
  readonly taskId: string;
  /**
   * Which live reminders go (R62): all of them when absent. Asked once per
   * reminder; one that throws keeps the reminder back, and `close()`
   * rejects with what it threw.
   */
  readonly filter?: (reminder: ReminderContent) => boolean;
  /** The copies' `source`, as the sub-task's model sees it; the original's when absent. */
  readonly source?: string;
  /**
   * With replicas, how often the task's reminders are read again to find
   * those accepted or cancelled on another replica (R64), in ms; default 1000.
   */
  readonly syncIntervalMs?: number;
  /** How long one call to the sub-task's agent may take, in ms; default 10 000. */
  readonly callTimeoutMs?: number;
}

/** One forwarding of a task's reminders into one sub-task (R62–R64). */
export interface ReminderForwarding {
  /** The sub-task the reminders go to. */
  readonly subTaskId: string;
  /**
   * Hands over one item of the sub-task's stream (what `sendMessageStream`
   * or `resubscribeTask` yields, on any binding): the copies' events in it
   * are reported back on the task at once (R63). Items of other tasks and
   * without reminder events are ignored, and so is everything once closed.
   */
  observe(item: unknown): Promise<void>;
  /**
   * Forwards every live reminder not forwarded yet and cancels the copies of
   * originals that were cancelled or displaced (R62, R63). Runs by itself
   * when forwarding starts and after every inject or cancel of the task on
   * this replica; a sync asked for while another waits to start joins it.
   */
  sync(): Promise<void>;
  /**
   * Stops forwarding: cancels the copies whose originals ended so, then reads
   * the copies' states with ListTaskReminders on the sub-task and reports
   * where they changed (R64), then cancels the copies that read adopted whose
   * originals ended so (R68). Forwards nothing new: the delegation is over.
   * Rejects with the first error a background sync or the filter met, if any.
   */
  close(): Promise<void>;
}

/**
 * Which new reminders a sync forwards: all (the start, R62), those it
 * reaches before the forwarding closes, or none (closing).
 */
type ForwardNew = 'all' | 'while-open' | 'none';

/** What the agent knows of one copy. */
interface Copy {
  readonly id: string;
  /** The copy as first sent: a re-send is then the same request, idempotent by R13. */
  readonly request: TaskReminder;
  /** Its state in the sub-task; undefined until the sub-task accepted it. */
  state: StoredReminderState | undefined;
  /**
   * The code of the last failed send. While the state is undefined, INTERNAL
   * means the copy's state is unknown: no answer came, yet it may have arrived.
   */
  refusal: ReminderErrorCode | undefined;
  sends: number;
  cancels: number;
  /** The sub-task answered a cancel with the copy already final (or gone). */
  cancelSettled: boolean;
  /** A cancel got no answer and is to be tried again (R63). */
  cancelPending: boolean;
}

const stateOfEvent: Partial<
  Record<NonNullable<TaskReminderEvent['event']['case']>, StoredReminderState>
> = {
  emitted: 'ACTIVE',
  displaced: 'DISPLACED',
  expired: 'EXPIRED',
  cancelled: 'CANCELLED',
  dropped: 'DROPPED',
};

const stateOfProto: Partial<Record<ReminderState, StoredReminderState>> = {
  [ReminderState.PENDING]: 'PENDING',
  [ReminderState.ACTIVE]: 'ACTIVE',
  [ReminderState.EXPIRED]: 'EXPIRED',
  [ReminderState.DISPLACED]: 'DISPLACED',
  [ReminderState.CANCELLED]: 'CANCELLED',
  [ReminderState.DROPPED]: 'DROPPED',
};

const DEFAULT_SYNC_INTERVAL_MS = 1000;
const DEFAULT_CALL_TIMEOUT_MS = 10_000;
/** Tries of a send or cancel whose outcome is unknown (INTERNAL: a transport failure, a timeout). */
const MAX_TRIES = 3;
/** The cancel answers that say the copy is already final or gone: no point asking again. */
const SETTLED_CANCEL: ReadonlySet<ReminderErrorCode> = new Set([
  'REMINDER_NOT_LIVE',
  'REMINDER_NOT_FOUND',
  'TASK_NOT_FOUND',
  'TASK_TERMINAL',
]);
/** R63: most copies one record lists; past it, the oldest that ended (or was refused) goes. */
export const MAX_FORWARDS_PER_REMINDER = 16;

/**
 * R62–R64 over one task's store and bus. Every step runs in one chain, so a
 * copy's report never overtakes the forward it reports on, and every call to
 * the sub-task's agent has a deadline, so none can hold the chain for good.
 */
export class ReminderForwarder implements ReminderForwarding {
  readonly subTaskId: string;
  /** By the original's id; the copy keeps it (R58). */
  private readonly copies = new Map<string, Copy>();
  /** Originals the filter turned down; never asked again. */
  private readonly skipped = new Set<string>();
  private chain: Promise<void> = Promise.resolve();
  /** A sync queued and not started yet, which later requests join. */
  private queued: Promise<void> | undefined;
  /** What the filter threw: kept for close, since that reminder stays back for good. */
  private filterFailure: unknown;
  /** What the last sync that failed threw; a later sync that succeeds clears it. */
  private syncFailure: unknown;
  private closed = false;
  /** A one-shot wake for copies waiting on a retry (R62), when no interval runs. */
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly syncIntervalMs: number;
  private readonly stopWatching: () => void;
  private readonly timer: ReturnType<typeof setInterval> | undefined;
  private readonly callTimeoutMs: number;

  constructor(
    private readonly steps: ReminderSteps,
    private readonly key: ReminderStoreKey,
    private readonly bus: ExecutionEventBus,
    private readonly fallback: StatusFallback,
    private readonly options: ForwardRemindersOptions,
  ) {
    checkOptions(options);
    this.subTaskId = options.taskId;
    this.callTimeoutMs = options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    this.syncIntervalMs = options.syncIntervalMs ?? DEFAULT_SYNC_INTERVAL_MS;
    this.stopWatching = steps.watch(key, () => this.background());
    // R64: this replica hears of its own rpcs only; the others' show up in the store.
    if (steps.replicas !== undefined) {
      this.timer = setInterval(() => this.background(), this.syncIntervalMs);
      this.timer.unref();
    }
    // R62: what is live when forwarding starts goes, even if it is closed at once.
    this.serial(() => this.syncStep('all')).catch(() => {});
  }

  private background(): void {
    this.sync().catch(() => {
      // Kept in syncFailure for close; the next sync may succeed.
    });
  }

  sync(): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (this.queued !== undefined) return this.queued;
    const queued = this.serial(async () => {
      this.queued = undefined;
      // A sync that waited while the forwarding closed forwards nothing new (R62).
      await this.syncStep(this.closed ? 'none' : 'while-open');
    });
    this.queued = queued;
    return queued;
  }

  private async syncStep(forwardNew: ForwardNew): Promise<void> {
    try {
      await this.reconcile(forwardNew);
      this.syncFailure = undefined;
    } catch (error) {
      this.syncFailure = error;
      throw error;
    } finally {
      this.scheduleRetry();
    }
  }

  observe(item: unknown): Promise<void> {
    if (this.closed) return Promise.resolve();
    const batch = reminderBatchOf(item);
    if (batch === undefined || batch.taskId !== this.subTaskId) return Promise.resolve();
    return this.serial(async () => {
      for (const event of batch.events) {
        const state = event.event.case === undefined ? undefined : stateOfEvent[event.event.case];
        if (state !== undefined) await this.learned(event.reminderId, state);
      }
    });
  }

  async close(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      this.stopWatching();
      if (this.timer !== undefined) clearInterval(this.timer);
      clearTimeout(this.retryTimer);
      await this.serial(async () => {
        try {
          await this.reconcile('none');
          // R68: a copy the read adopts may have an original that is no longer
          // live; the reconcile before it could not know the copy had arrived.
          if (await this.readCopies()) await this.reconcile('none');
          this.syncFailure = undefined;
        } catch (error) {
          this.syncFailure = error;
        }
      });
    }
    const failure = this.filterFailure ?? this.syncFailure;
    if (failure !== undefined) throw failure;
  }

  /**
   * R62: a copy whose send (or cancel) got no answer is tried again at the
   * next read of the store; without the replicas' interval, this wake makes
   * sure there is one.
   */
  private scheduleRetry(): void {
    if (this.closed || this.timer !== undefined || this.retryTimer !== undefined) return;
    const waiting = [...this.copies.values()].some(
      (c) =>
        (c.state === undefined && isNoAnswer(c.refusal) && c.sends < MAX_TRIES) || c.cancelPending,
    );
    if (!waiting) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.background();
    }, this.syncIntervalMs);
    this.retryTimer.unref();
  }

  private serial(step: () => Promise<void>): Promise<void> {
    const run = this.chain.then(step);
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** Options for one call to the sub-task's agent: its deadline. */
  private call(): { readonly signal: AbortSignal } {
    return { signal: AbortSignal.timeout(this.callTimeoutMs) };
  }

  /**
   * R62, R63: forward what is new (unless closing), send again what may not
   * have arrived, and make the copies follow their originals.
   */
  private async reconcile(forwardNew: ForwardNew): Promise<void> {
    const snapshot = await this.steps.store.read(this.key);
    if (snapshot === undefined) return;
    const byId = new Map(snapshot.reminders.map((r) => [r.id, r]));
    this.forget(byId);
    if (forwardNew !== 'none' && snapshot.ended === undefined) {
      for (const r of snapshot.reminders) {
        if (forwardNew === 'while-open' && this.closed) break;
        if (!isLiveState(r.state)) continue;
        const copy = this.copies.get(r.id);
        if (copy === undefined && !this.skipped.has(r.id) && this.admits(r)) {
          await this.send(r.id, this.newCopy(r));
        } else if (isNoAnswer(copy?.refusal) && copy !== undefined && copy.sends < MAX_TRIES) {
          await this.send(r.id, copy);
        }
      }
    }
    for (const [originalId, copy] of this.copies) {
      const original = byId.get(originalId);
      // R68: a copy of unknown state may be live in the sub-task: it follows its
      // original like one the sub-task accepted, or the sub-task's model sees it.
      if (original === undefined || !mayBeLive(copy)) continue;
      if (copy.cancelSettled || copy.cancels >= MAX_TRIES) continue;
      if (original.state === 'CANCELLED') await this.cancelCopy(originalId, copy);
      // R63: a displacer that went to the sub-task displaces the copy there itself (R15).
      else if (original.state === 'DISPLACED' && !this.accepted(original.displacedBy)) {
        await this.cancelCopy(originalId, copy);
      }
    }
  }

  /**
   * Drops what the task no longer retains (R35, R48) once its copy can change
   * no more, so a long forwarding keeps no more than the task does, and an id
   * accepted again after a purge is a new reminder here too.
   */
  private forget(retained: ReadonlyMap<string, StoredReminder>): void {
    for (const id of this.skipped) if (!retained.has(id)) this.skipped.delete(id);
    for (const [id, copy] of this.copies) {
      if (!retained.has(id) && (copy.state === undefined || !isLiveState(copy.state))) {
        this.copies.delete(id);
      }
    }
  }

  private admits(original: StoredReminder): boolean {
    const filter = this.options.filter;
    if (filter === undefined) return true;
    let admitted = false;
    try {
      admitted = filter(original);
    } catch (error) {
      this.filterFailure ??= error;
    }
    if (!admitted) this.skipped.add(original.id);
    return admitted;
  }

  /** Whether the sub-task accepted a copy of this original. */
  private accepted(originalId: string | undefined): boolean {
    const copy = originalId === undefined ? undefined : this.copies.get(originalId);
    return copy?.state !== undefined;
  }

  /** R58: the copy, with one more hop of provenance; built once, so re-sends are identical. */
  private newCopy(original: StoredReminder): Copy {
    const request = reminderOf(original);
    request.ttlTurns = Math.max(1, turnsRemainingOf(original));
    request.source = this.options.source ?? original.source;
    request.provenance = {
      $typeName: 'a2a.reminders.v1.ReminderProvenance',
      hops: [
        ...(original.provenance?.hops ?? []),
        {
          $typeName: 'a2a.reminders.v1.ReminderHop',
          taskId: this.key.taskId,
          reminderId: original.id,
          source: original.source,
        },
      ],
    };
    const copy: Copy = {
      id: original.id,
      request,
      state: undefined,
      refusal: undefined,
      sends: 0,
      cancels: 0,
      cancelSettled: false,
      cancelPending: false,
    };
    this.copies.set(original.id, copy);
    return copy;
  }

  /** R62: one send of the copy; its outcome goes on the original's record (R63). */
  private async send(originalId: string, copy: Copy): Promise<void> {
    copy.sends += 1;
    let answer: Awaited<ReturnType<ForwardingClient['injectTaskReminder']>>;
    try {
      answer = await this.options.client.injectTaskReminder(
        { taskId: this.subTaskId, reminder: copy.request },
        this.call(),
      );
    } catch (error) {
      // Refused, or no answer (INTERNAL: tried again at later syncs): on the record either way.
      const code = ReminderError.from(error).code;
      if (code === copy.refusal) return;
      copy.refusal = code;
      await this.report(originalId, { refusal: code });
      return;
    }
    copy.refusal = undefined;
    copy.state = stateOfProto[answer.record?.state ?? ReminderState.UNSPECIFIED] ?? 'PENDING';
    await this.report(originalId, { state: copy.state });
    // R63: dedupe keys work across hops; the answer names the copies this one displaced.
    for (const id of answer.displacedReminderIds) await this.learned(id, 'DISPLACED');
  }

  private async cancelCopy(originalId: string, copy: Copy): Promise<void> {
    copy.cancels += 1;
    let answer: Awaited<ReturnType<ForwardingClient['cancelTaskReminder']>>;
    try {
      answer = await this.options.client.cancelTaskReminder(
        { taskId: this.subTaskId, reminderId: copy.id },
        this.call(),
      );
    } catch (error) {
      // Already final there (its event, or close's read, tells how), or no
      // answer: the next sync tries again, up to MAX_TRIES. For a copy of
      // unknown state, REMINDER_NOT_FOUND says it never arrived (R68).
      const settled = SETTLED_CANCEL.has(ReminderError.from(error).code);
      copy.cancelSettled = settled;
      copy.cancelPending = !settled && copy.cancels < MAX_TRIES;
      return;
    }
    copy.cancelPending = false;
    const state = stateOfProto[answer.record?.state ?? 0] ?? 'CANCELLED';
    if (copy.state !== undefined) {
      await this.learned(originalId, state);
    } else if (this.isCopy(answer.record, copy.id)) {
      // R68: the copy of unknown state had arrived; the answer is its state now.
      await this.adopt(copy, state);
    } else {
      // The sub-task's reminder of that id is not this copy: nothing more to ask.
      copy.cancelSettled = true;
    }
  }

  /**
   * R64, R68: a copy whose sends got no answer is known to have arrived; its
   * entry takes the state learned. A cancel that found none before it arrived
   * no longer counts: the copy is cancelled again if its original ended so.
   */
  private async adopt(copy: Copy, state: StoredReminderState): Promise<void> {
    copy.state = state;
    copy.refusal = undefined;
    copy.cancelSettled = false;
    await this.report(copy.id, { state });
  }

  /**
   * Whether a sub-task's record is this forwarding's copy: same id, last hop
   * naming this task and the original (R58).
   */
  private isCopy(record: TaskReminderRecord | undefined, id: string): boolean {
    const hop = record?.reminder?.provenance?.hops.at(-1);
    return record?.reminder?.id === id && hop?.taskId === this.key.taskId && hop.reminderId === id;
  }

  /** A copy's state as the sub-task reported it; reported on where it changed. */
  private async learned(copyId: string, state: StoredReminderState): Promise<void> {
    const copy = this.copies.get(copyId);
    if (copy === undefined || copy.state === state || copy.state === undefined) return;
    // A final state never changes again (R18); a late PENDING or ACTIVE is stale.
    if (!isLiveState(copy.state)) return;
    if (copy.state === 'ACTIVE' && state === 'PENDING') return;
    copy.state = state;
    await this.report(copyId, { state });
  }

  /**
   * R64: the copies' states as the sub-task lists them. A copy whose send
   * got no answer is adopted when the list shows it arrived: same id, last
   * hop naming this task and its original. Says whether it adopted any.
   */
  private async readCopies(): Promise<boolean> {
    if (![...this.copies.values()].some(mayBeLive)) return false;
    const listed: TaskReminderRecord[] = [];
    try {
      for await (const page of reminderPages(
        this.options.client,
        { taskId: this.subTaskId, pageSize: 100 },
        this.call(),
      )) {
        listed.push(...page.reminders);
      }
    } catch {
      // The sub-task's agent is gone: the record keeps the last state learned.
    }
    let adopted = false;
    for (const record of listed) {
      const state = stateOfProto[record.state];
      const id = record.reminder?.id;
      const copy = id === undefined ? undefined : this.copies.get(id);
      if (state === undefined || id === undefined || copy === undefined) continue;
      if (copy.state === undefined) {
        if (!this.isCopy(record, id)) continue;
        await this.adopt(copy, state);
        adopted = true;
      } else {
        await this.learned(id, state);
      }
    }
    return adopted;
  }

  /**
   * R63: the original's record lists the copy as now learned, and the task's
   * stream gets a `forward` event, in one step. A record purged meanwhile
   * (R48) takes no report; a task whose reminders ended (R27) takes it on
   * its record only, since its stream is over.
   */
  private async report(
    originalId: string,
    learned: Pick<StoredForward, 'state' | 'refusal'>,
  ): Promise<void> {
    const nowMs = this.steps.nowMs();
    const forward: StoredForward = {
      taskId: this.subTaskId,
      reminderId: originalId,
      ...learned,
      updateTimeMs: nowMs,
    };
    const outcome = await this.steps.commit(this.key, async (tx) => {
      const original = await tx.get(originalId);
      if (original === undefined) return { result: undefined, events: [] };
      const updated = recordWith(original, original.seq, {
        forwards: withForward(original.forwards ?? [], forward),
      });
      tx.put(updated);
      if (tx.ended !== undefined) return { result: undefined, events: [] };
      return { result: undefined, events: [forwardEvent(updated, nowMs, forward)] };
    });
    await this.steps.deliver(this.key, this.bus, this.fallback, outcome);
  }
}

/**
 * Whether a copy may be live in the sub-task: accepted and not final there,
 * or of unknown state, its sends unanswered (R62), since one may have arrived.
 */
function mayBeLive(copy: Copy): boolean {
  return copy.state === undefined ? isNoAnswer(copy.refusal) : isLiveState(copy.state);
}

/**
 * The record's list with `forward` in its entry's place (or last, if new),
 * at most {@link MAX_FORWARDS_PER_REMINDER} long: a new entry past it pushes
 * out the oldest that can change no more, else the oldest (R63).
 */
function withForward(
  forwards: readonly StoredForward[],
  forward: StoredForward,
): readonly StoredForward[] {
  const same = (f: StoredForward) =>
    f.taskId === forward.taskId && f.reminderId === forward.reminderId;
  if (forwards.some(same)) return forwards.map((f) => (same(f) ? forward : f));
  const list = [...forwards, forward];
  if (list.length <= MAX_FORWARDS_PER_REMINDER) return list;
  // A copy refused for good, or final; one that got no answer may still arrive (R62, R64).
  const ended = list.findIndex((f) =>
    f.state === undefined ? !isNoAnswer(f.refusal) : !isLiveState(f.state),
  );
  list.splice(ended >= 0 && ended < list.length - 1 ? ended : 0, 1);
  return list;
}

/** A sub-task id is stored on the task's records and streamed (R63): bounded like a hop's. */
function checkOptions(options: ForwardRemindersOptions): void {
  const id = options.taskId;
  if (
    id.trim() === '' ||
    id.length > MAX_HOP_TASK_ID_CHARS ||
    refusedCharacters(id, 'name').length > 0
  ) {
    throw new RangeError(
      `the sub-task id must be 1 to ${MAX_HOP_TASK_ID_CHARS} characters with no control or invisible ones`,
    );
  }
  const source = options.source;
  if (
    source !== undefined &&
    (source.length > MAX_SOURCE_CHARS || refusedCharacters(source, 'name').length > 0)
  ) {
    throw new RangeError(
      `the copies' source must be at most ${MAX_SOURCE_CHARS} characters with no control or invisible ones`,
    );
  }
  for (const [name, value] of [
    ['syncIntervalMs', options.syncIntervalMs],
    ['callTimeoutMs', options.callTimeoutMs],
  ] as const) {
    if (value !== undefined && !(Number.isInteger(value) && value >= 10 && value <= 2 ** 31 - 1)) {
      throw new RangeError(`${name} must be an integer from 10 to ${2 ** 31 - 1}, got ${value}`);
    }
  }
}

/**
 * A refusal that says nothing of whether the copy arrived (R62, R68): no
 * answer (INTERNAL) or the sub-agent's store unavailable (R69), which may
 * have committed.
 */
function isNoAnswer(refusal: string | undefined): boolean {
  return refusal === 'INTERNAL' || refusal === 'UNAVAILABLE';
}
