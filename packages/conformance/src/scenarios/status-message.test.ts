import type { Message, StreamResponse, Task, TaskStatus } from '@a2a-js/sdk';
import { ListTasksRequest, Role, TaskState } from '@a2a-js/sdk';
import { isTerminalState, reminderEventsOf } from '@a2a-reminders/core';
import { expect } from 'vitest';
import { kinds } from '../harness/observe.js';
import type { StreamWatch } from '../harness/stream-watch.js';
import { verifies } from '../harness/verifies.js';
import type { Wire } from '../harness/wire.js';

// R50: the executor of these stacks puts an agent message on every status it
// publishes, the opening task event's included (a message A2A does not put in
// the history). A subject task gets reminder events; a control task goes
// through the same steps without any, and shows what the subject must show.
const withMessages = { stack: { statusMessages: true } } as const;

/** Every part, non-text ones as `<kind>`, so a comparison notices a part that is not text. */
function textOf(message: Message | undefined): string {
  return (message?.parts ?? [])
    .map((p) => (p.content?.$case === 'text' ? p.content.value : `<${p.content?.$case}>`))
    .join('');
}

/** What GetTask shows of a status, comparable across bindings (the timestamp as an instant). */
function statusOf(status: TaskStatus | undefined) {
  return {
    state: TaskState[status?.state ?? TaskState.TASK_STATE_UNSPECIFIED],
    messageId: status?.message?.messageId,
    text: textOf(status?.message),
    time: status?.timestamp === undefined ? undefined : Date.parse(status.timestamp),
  };
}

/** The history as role and text: message ids differ between the subject and the control. */
function historyOf(task: Task | undefined): string[] {
  return (task?.history ?? []).map((m) => `${Role[m.role]}: ${textOf(m)}`);
}

/**
 * GetTask and ListTasks of the subject show the status the agent last
 * published, verbatim, and the history the control (no reminders) has.
 */
async function expectUntouched(wire: Wire, subject: string, control: string, step: string) {
  const executor = wire.stack.executor;
  const [s, c] = await Promise.all([wire.tasks.getTask(subject), wire.tasks.getTask(control)]);
  const listed = await wire.sdk.listTasks(ListTasksRequest.fromJSON({ pageSize: 100 }));
  const listedSubject = listed.tasks.find((t) => t.id === subject);
  // The control first: it shows what the agent published, so the harness holds.
  expect(statusOf(c.status), `${step}: control`).toEqual(statusOf(executor.lastStatus(control)));
  expect(statusOf(c.status).text, `${step}: control`).not.toBe('');
  expect(statusOf(s.status), `${step}: GetTask status`).toEqual(
    statusOf(executor.lastStatus(subject)),
  );
  expect(historyOf(s), `${step}: GetTask history`).toEqual(historyOf(c));
  expect(statusOf(listedSubject?.status), `${step}: ListTasks status`).toEqual(statusOf(s.status));
  expect(historyOf(listedSubject), `${step}: ListTasks history`).toEqual(historyOf(c));
  // No batch is stored with the task (R66): its metadata is the control's.
  expect(s.metadata, `${step}: GetTask metadata`).toEqual(c.metadata);
  expect(listedSubject?.metadata, `${step}: ListTasks metadata`).toEqual(c.metadata);
}

verifies(
  'R50-status-message-kept',
  async ({ wire }) => {
    const subject = await wire.tasks.create();
    const control = await wire.tasks.create();
    const both = async (step: (taskId: string) => Promise<unknown>) => {
      await step(subject);
      await step(control);
    };
    const settled = () => both((id) => wire.tasks.settle(id));
    const inject = (id: string, dedupeKey = '') =>
      wire.client.injectTaskReminder({ taskId: subject, reminder: { id, body: id, dedupeKey } });
    // The batch the A2A server last saved with the subject (R30, R66).
    const savedKinds = () => kinds(wire.stack.taskStore.lastSavedBatch(subject));
    const storedWith = (kind: string) =>
      wire.stack.taskStore.waitFor(subject, () => savedKinds().includes(kind), kind);

    // The opening status came in the task event: its message is not in the
    // history, so a displacement waits for the next status update.
    await inject('a', 'k');
    await inject('b', 'k');
    await settled();
    await expectUntouched(wire, subject, control, 'opening WORKING, batch held');

    // A status update: the held batch goes out repeating it.
    await both((id) => wire.tasks.hold(id, 'WORKING'));
    await storedWith('displaced:a');
    await both((id) => wire.tasks.turn(id));
    await settled();
    expect(savedKinds()).toEqual(['emitted:b']);
    await expectUntouched(wire, subject, control, 'WORKING after an inject and a turn');

    // AUTH_REQUIRED: the sign-in instructions survive an inject and a cancel.
    await both((id) => wire.tasks.hold(id, 'AUTH_REQUIRED'));
    await inject('c');
    await wire.client.cancelTaskReminder({ taskId: subject, reminderId: 'c' });
    await settled();
    expect(savedKinds()).toEqual(['cancelled:c']);
    await expectUntouched(wire, subject, control, 'AUTH_REQUIRED after a cancel');

    // INPUT_REQUIRED: the question survives; the displacement is held (R30).
    await both((id) => wire.tasks.hold(id, 'INPUT_REQUIRED'));
    await inject('d', 'k2');
    await inject('e', 'k2');
    await expectUntouched(wire, subject, control, 'INPUT_REQUIRED');

    // The answer starts an execution that opens with a task event, whose
    // message is not in the history: the held events keep waiting, with the turn's.
    await both((id) => wire.tasks.resume(id));
    await both((id) => wire.tasks.turn(id));
    await settled();
    await expectUntouched(wire, subject, control, 'resumed WORKING, batches held');
    await both((id) => wire.tasks.hold(id, 'WORKING'));
    await storedWith('emitted:e');
    expect(savedKinds()).toEqual(['displaced:d', 'expired:b', 'emitted:e']);
    await settled();
    await expectUntouched(wire, subject, control, 'WORKING after the held events');

    // Task end: the fates go out before the terminal update.
    await both((id) => wire.tasks.end(id, 'COMPLETED'));
    await expectUntouched(wire, subject, control, 'COMPLETED');
    const listed = await wire.client.listTaskReminders({ taskId: subject });
    expect(listed.reminders.map((r) => r.reminder?.id)).toEqual(['a', 'b', 'c', 'd', 'e']);
  },
  withMessages,
);

/**
 * Reads a stream as R50 tells a consumer to: a status update carrying a batch
 * with a non-terminal status equal to the last status shown is a reminder
 * update; any other status update is a status change.
 */
function readAsConsumer(watch: StreamWatch): string[] {
  let last: TaskStatus | undefined;
  const seen: string[] = [];
  for (const item of watch.items as StreamResponse[]) {
    const payload = item.payload;
    if (payload?.$case === 'task') {
      last = payload.value.status;
      seen.push(`task ${TaskState[payload.value.status?.state ?? 0]}`);
      continue;
    }
    if (payload?.$case !== 'statusUpdate') continue;
    const status = payload.value.status;
    const events = kinds(reminderEventsOf(item));
    const repeat =
      events.length > 0 &&
      !isTerminalState(status?.state) &&
      JSON.stringify(statusOf(status)) === JSON.stringify(statusOf(last));
    // Every batch rides on a repeat of the last status, or on the terminal update.
    expect(repeat || events.length === 0 || isTerminalState(status?.state), events.join(',')).toBe(
      true,
    );
    // A repeat shows the agent's message, not none.
    if (repeat) expect(textOf(status?.message)).not.toBe('');
    const batch = events.length > 0 ? ` ${events.join(',')}` : '';
    seen.push(`${repeat ? 'reminders' : 'status'} ${TaskState[status?.state ?? 0]}${batch}`);
    last = status;
  }
  return seen;
}

verifies(
  'R50-status-message-kept',
  async ({ wire }) => {
    const { taskId, watch: streaming } = await wire.tasks.stream();
    const subscribed = await wire.tasks.subscribe(taskId);
    const inject = (id: string, dedupeKey = '') =>
      wire.client.injectTaskReminder({ taskId, reminder: { id, body: id, dedupeKey } });
    await inject('x', 'j');
    await inject('y', 'j'); // held: the opening message is not in the history
    await wire.tasks.hold(taskId, 'WORKING');
    await inject('a', 'k');
    await inject('b', 'k');
    await wire.tasks.turn(taskId);
    await wire.tasks.hold(taskId, 'AUTH_REQUIRED');
    await inject('c');
    await wire.client.cancelTaskReminder({ taskId, reminderId: 'c' });
    await inject('p');
    const cancelled = await wire.sdk.cancelTask({ tenant: '', id: taskId, metadata: undefined });
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const expected = [
      'task TASK_STATE_WORKING',
      'status TASK_STATE_WORKING',
      'reminders TASK_STATE_WORKING displaced:x',
      'reminders TASK_STATE_WORKING displaced:a',
      'reminders TASK_STATE_WORKING emitted:y,emitted:b',
      'status TASK_STATE_AUTH_REQUIRED',
      'reminders TASK_STATE_AUTH_REQUIRED cancelled:c',
      'reminders TASK_STATE_AUTH_REQUIRED expired:y,expired:b,dropped:p',
      'status TASK_STATE_CANCELED',
    ];
    for (const watch of [streaming, subscribed]) {
      await watch.untilEnded();
      expect(watch.error).toBeUndefined();
      expect(readAsConsumer(watch)).toEqual(expected);
    }
    // After the end, the task shows the agent's CANCELED status verbatim.
    const task = await wire.tasks.getTask(taskId);
    expect(statusOf(task.status)).toEqual(statusOf(wire.stack.executor.lastStatus(taskId)));
  },
  { ...withMessages, variant: 'stream consumers' },
);
