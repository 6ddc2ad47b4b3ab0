import { delegationRequest } from '@a2a-reminders/client';
import { isTerminalState, reminderEventsOf } from '@a2a-reminders/core';
import type { TaskReminderEvent, TaskReminderRecord } from '@a2a-reminders/proto';
import { ReminderState } from '@a2a-reminders/proto';
import type { Connection, InjectFields } from './cli-args.js';
import {
  describeInjected,
  describeRecord,
  describeReminderEvent,
  reminderStateName,
  taskStateLabel,
} from './format.js';
import { listAllReminders } from './reminder-records.js';
import { progressOf, taskStateOf } from './stream-items.js';
import { Timeline } from './timeline.js';
import { withWorker } from './with-worker.js';

/** The task the forwarding demo delegates; the worker runs its test step on the test agent. */
export const FORWARDING_TASK_TEXT = 'Make the retry tests in test/http/retry.test.ts pass';

/**
 * What CI says while the tests run on the test agent: forwarded there, then
 * displaced by its rerun. Six turns, so that its copy outlives by seconds the
 * moment the rerun goes out (the copy's first surfacing), on a busy machine
 * too.
 */
export const CI_REMINDER: InjectFields = {
  id: 'ci-run-89',
  body: 'CI run 89: "backs off" in test/http/retry.test.ts failed twice on runner 7. Re-run it before you report.',
  dedupeKey: 'ci:retry-backoff',
  ttlTurns: 6,
  source: 'ci',
};

/** CI's next word under the same key: it displaces CI_REMINDER, and so its copy in the sub-task (R63). */
export const CI_RERUN_REMINDER: InjectFields = {
  id: 'ci-run-90',
  body: 'CI run 90: the re-run of "backs off" passed; runner 7 is flaky, not the code.',
  dedupeKey: 'ci:retry-backoff',
  ttlTurns: 2,
  source: 'ci',
};

/**
 * A signal retracted while its copy is live: the cancel reaches the copy
 * (R63). Six turns, so the copy is still live when the cancel arrives.
 */
export const DRAIN_REMINDER: InjectFields = {
  id: 'runner-drain',
  body: 'CI runner pool 7 is draining: keep test runs short.',
  ttlTurns: 6,
  source: 'ci-ops',
};

/** Ends the run: the test agent's model wraps up when it sees it, then the worker's does. */
export const BUDGET_REMINDER: InjectFields = {
  id: 'cost-95',
  body: "Cost monitor: 95% of this task's $5.00 budget is spent. Wrap up now.",
  dedupeKey: 'cost-budget',
  ttlTurns: 1,
  source: 'cost-monitor',
  roleHint: 'system',
};

/** Every reminder the demo sends, in order; each is forwarded. */
export const FORWARDED: readonly InjectFields[] = [
  CI_REMINDER,
  DRAIN_REMINDER,
  CI_RERUN_REMINDER,
  BUDGET_REMINDER,
];

export interface ForwardingDemoOptions {
  /** The worker, started with `--delegate-tests` naming the test agent. */
  readonly worker: Connection;
  /** The test agent, on the same binding, to list the copies where they live. */
  readonly testAgent: Connection;
  readonly write: (line: string) => void;
  readonly timeoutMs?: number;
}

export interface ForwardingDemoResult {
  readonly taskId: string;
  readonly subTaskId: string;
  readonly finalState: string;
  /** The worker's records of the four reminders, `forwards` included. */
  readonly records: readonly TaskReminderRecord[];
  /** The test agent's records of their copies, provenance included. */
  readonly copies: readonly TaskReminderRecord[];
  /** Every reminder event of the worker's task stream, in order. */
  readonly events: readonly TaskReminderEvent[];
  readonly problems: readonly string[];
  readonly ok: boolean;
}

const DELEGATED = /delegated to .+ as task (\S+)$/;

/**
 * The three-level chain of spec §15: the coordinator delegates a coding task
 * to the worker, which runs its test step as a sub-task on the test agent
 * and forwards the task's reminders there. Driven by events only: CI's
 * signal and a runner notice go out once the stream shows the delegation;
 * the notice is cancelled once its copy is accepted; CI's rerun, under the
 * same dedupe key, once CI's copy reached the test agent's model; the budget
 * alert, which makes both agents wrap up, once the rerun's copy displaced
 * CI's in the sub-task and the notice's copy was cancelled. Then each
 * copy's fate on the original's record is checked against the test agent's
 * own list.
 */
export async function runForwardingDemo(
  options: ForwardingDemoOptions,
): Promise<ForwardingDemoResult> {
  const { binding } = options.worker;
  const timeline = new Timeline(`forward ${binding}`, options.write);
  const signal = AbortSignal.timeout(options.timeoutMs ?? 120_000);
  return withWorker(options.worker, async (worker) => {
    timeline.plain(
      `== forwarding over ${binding}: coordinator → ${worker.card.name} at ${worker.endpoint} → test agent`,
    );
    const inject = async (taskId: string, reminder: InjectFields) => {
      const response = await worker.reminders.injectTaskReminder({ taskId, reminder }, { signal });
      timeline.line('inject', describeInjected(reminder, response));
    };
    const sent = await worker.client.sendMessage(
      delegationRequest(FORWARDING_TASK_TEXT),
      worker.requestOptions(signal),
    );
    if (!('status' in sent)) throw new Error('the worker answered with a message, not a task');
    timeline.line('delegate', `task ${sent.id} "${FORWARDING_TASK_TEXT}"`);

    const events: TaskReminderEvent[] = [];
    const copyStates = new Map<string, string>();
    let subTaskId = '';
    let cancelled = false;
    let rerunSent = false;
    let budgetSent = false;
    let finalState = '';
    for await (const item of worker.client.resubscribeTask(
      { tenant: '', id: sent.id },
      worker.requestOptions(signal),
    )) {
      const progress = progressOf(item);
      if (progress !== undefined && !isTerminalState(progress.state)) {
        timeline.line('progress', progress.text);
      }
      const delegated = DELEGATED.exec(progress?.text ?? '');
      if (delegated?.[1] !== undefined && subTaskId === '') {
        subTaskId = delegated[1];
        await inject(sent.id, CI_REMINDER);
        await inject(sent.id, DRAIN_REMINDER);
      }
      for (const event of reminderEventsOf(item)) {
        events.push(event);
        const { tag, text } = describeReminderEvent(event);
        timeline.line(tag, text);
        if (event.event.case !== 'forward') continue;
        const copy = event.event.value;
        copyStates.set(event.reminderId, copy.refusal || reminderStateName(copy.state));
      }
      if (!cancelled && copyStates.get(DRAIN_REMINDER.id) === 'PENDING') {
        cancelled = true;
        const answer = await worker.reminders.cancelTaskReminder(
          { taskId: sent.id, reminderId: DRAIN_REMINDER.id },
          { signal },
        );
        const state = reminderStateName(answer.record?.state ?? ReminderState.UNSPECIFIED);
        timeline.line('cancel', `${DRAIN_REMINDER.id} ${state}: the drain was called off`);
      }
      if (!rerunSent && copyStates.get(CI_REMINDER.id) === 'ACTIVE') {
        rerunSent = true;
        await inject(sent.id, CI_RERUN_REMINDER);
      }
      if (
        !budgetSent &&
        copyStates.get(CI_REMINDER.id) === 'DISPLACED' &&
        copyStates.get(DRAIN_REMINDER.id) === 'CANCELLED'
      ) {
        budgetSent = true;
        await inject(sent.id, BUDGET_REMINDER);
      }
      const state = taskStateOf(item);
      if (isTerminalState(state)) {
        finalState = taskStateLabel(state);
        timeline.line('state', `${finalState}${progress?.text ? `: ${progress.text}` : ''}`);
        break;
      }
    }

    const records = await listAllReminders(worker.reminders, { taskId: sent.id }, { signal });
    const copies =
      subTaskId === ''
        ? []
        : await withWorker(options.testAgent, (agent) =>
            listAllReminders(agent.reminders, { taskId: subTaskId }, { signal }),
          );
    timeline.plain(
      `-- task ${sent.id} ended ${finalState || 'unseen'}; its reminders and their copies:`,
    );
    for (const r of records) timeline.plain(`   ${describeRecord(r)}`);
    timeline.plain(`-- the test agent's task ${subTaskId || '(none)'}:`);
    for (const c of copies) timeline.plain(`   ${describeRecord(c)}`);
    const facts: ForwardingFacts = {
      taskId: sent.id,
      subTaskId,
      finalState,
      records,
      copies,
      events,
    };
    const problems = judgeForwarding(facts);
    for (const p of problems) timeline.plain(`   problem: ${p}`);
    timeline.plain(
      problems.length === 0
        ? '   every copy carried its provenance and its fate came back to the worker'
        : '   forwarding did not go as the spec says',
    );
    return { ...facts, problems, ok: problems.length === 0 };
  });
}

/** What the verdict reads: the run's result less the verdict itself. */
type ForwardingFacts = Omit<ForwardingDemoResult, 'problems' | 'ok'>;

/**
 * What the chain must show (R58, R62, R63): each reminder forwarded once into
 * the sub-task, its copy there carrying one hop naming the original; the
 * notice cancelled on both sides; CI's copy displaced there by the rerun's;
 * every copy final, its record entry saying the same state as the test
 * agent lists, and that state published on the worker's stream.
 */
export function judgeForwarding(facts: ForwardingFacts): string[] {
  const problems: string[] = [];
  if (facts.finalState !== 'COMPLETED') {
    problems.push(`the task ended ${facts.finalState || 'unseen'}, not COMPLETED`);
  }
  if (facts.subTaskId === '') return [...problems, 'the worker never delegated its tests'];
  for (const reminder of FORWARDED) {
    const id = reminder.id;
    const record = facts.records.find((r) => r.reminder?.id === id);
    const copy = facts.copies.find((r) => r.reminder?.id === id);
    const entry = record?.forwards.find((f) => f.taskId === facts.subTaskId);
    if (record === undefined || copy === undefined || entry === undefined) {
      problems.push(`${id}: not forwarded into ${facts.subTaskId}`);
      continue;
    }
    const hops = copy.reminder?.provenance?.hops ?? [];
    const hop = hops[0];
    if (
      hops.length !== 1 ||
      hop?.taskId !== facts.taskId ||
      hop.reminderId !== id ||
      hop.source !== (reminder.source ?? '')
    ) {
      problems.push(`${id}: its copy's provenance does not name task ${facts.taskId}`);
    }
    if (
      copy.state !== entry.state ||
      entry.state === ReminderState.PENDING ||
      entry.state === ReminderState.ACTIVE
    ) {
      problems.push(
        `${id}: the record says its copy is ${reminderStateName(entry.state)}, the test agent lists it ${reminderStateName(copy.state)}`,
      );
    }
    const published = facts.events.some(
      (e) =>
        e.reminderId === id && e.event.case === 'forward' && e.event.value.state === entry.state,
    );
    if (!published)
      problems.push(`${id}: the copy's ${reminderStateName(entry.state)} never reached the stream`);
  }
  const drain = facts.records.find((r) => r.reminder?.id === DRAIN_REMINDER.id);
  if (drain !== undefined && drain.forwards[0]?.state !== ReminderState.CANCELLED) {
    problems.push(`${DRAIN_REMINDER.id}: cancelling it did not cancel its copy`);
  }
  const ciCopy = facts.copies.find((r) => r.reminder?.id === CI_REMINDER.id);
  if (ciCopy !== undefined && ciCopy.displacedBy !== CI_RERUN_REMINDER.id) {
    problems.push(`${CI_REMINDER.id}: its copy was not displaced by ${CI_RERUN_REMINDER.id}'s`);
  }
  return problems;
}
