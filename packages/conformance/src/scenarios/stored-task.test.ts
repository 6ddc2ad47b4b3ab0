import type { Task } from '@a2a-js/sdk';
import { ListTasksRequest } from '@a2a-js/sdk';
import { TASK_REMINDERS_EXTENSION_URI } from '@a2a-reminders/core';
import { expect } from 'vitest';
import { kinds } from '../harness/observe.js';
import { verifies } from '../harness/verifies.js';
import type { Wire } from '../harness/wire.js';

/** The task as GetTask and as ListTasks return it. */
async function readBack(wire: Wire, taskId: string): Promise<[Task, Task | undefined]> {
  const got = await wire.tasks.getTask(taskId);
  const listed = await wire.sdk.listTasks(ListTasksRequest.fromJSON({ pageSize: 100 }));
  return [got, listed.tasks.find((t) => t.id === taskId)];
}

function batchesIn(tasks: readonly (Task | undefined)[]): unknown[] {
  return tasks.map((t) => t?.metadata?.[TASK_REMINDERS_EXTENSION_URI]);
}

// R66: the streams carry every batch; the stored task keeps none of them.
verifies('R66-batches-off-stored-task', async ({ wire }) => {
  const taskId = await wire.tasks.create();
  const watch = await wire.tasks.subscribe(taskId);
  await wire.client.injectTaskReminder({ taskId, reminder: { id: 'a', body: 'a' } });
  await wire.client.injectTaskReminder({ taskId, reminder: { id: 'b', body: 'b' } });
  await wire.tasks.turn(taskId);
  await watch.untilEvents(2);
  await wire.tasks.settle(taskId);
  expect(batchesIn(await readBack(wire, taskId))).toEqual([undefined, undefined]);

  // The terminal update carries the task-end fates; the ended task keeps none of them either.
  await wire.tasks.end(taskId, 'COMPLETED');
  await watch.untilEnded();
  expect(watch.batches().map(kinds)).toEqual([
    ['emitted:a', 'emitted:b'],
    ['expired:a', 'expired:b'],
  ]);
  expect(batchesIn(await readBack(wire, taskId))).toEqual([undefined, undefined]);
});
