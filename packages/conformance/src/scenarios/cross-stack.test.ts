import { expect } from 'vitest';
import { eventSummary } from '../harness/observe.js';
import type { SdkBinding } from '../harness/stack.js';
import { verifies } from '../harness/verifies.js';

const BINDINGS: SdkBinding[] = ['JSONRPC', 'HTTP+JSON', 'GRPC'];

verifies('W10-cross-stack', async ({ wire }) => {
  const taskId = await wire.tasks.create();
  // A stock ClientFactory client on each binding subscribes to the same task.
  const watches = [];
  for (const binding of BINDINGS) {
    const client = await wire.stack.sdkClient(binding);
    expect(client.transport.protocolName).toBe(binding);
    watches.push(await wire.tasks.subscribe(taskId, client));
  }
  await wire.client.injectTaskReminder({
    taskId,
    reminder: { id: 'a', body: 'a', dedupeKey: 'k', ttlTurns: 2 },
  });
  await wire.client.injectTaskReminder({
    taskId,
    reminder: { id: 'b', body: 'b', dedupeKey: 'k' },
  });
  await wire.client.injectTaskReminder({ taskId, reminder: { id: 'c', body: 'c' } });
  await wire.client.cancelTaskReminder({ taskId, reminderId: 'c' });
  await wire.tasks.turn(taskId);
  await wire.client.injectTaskReminder({ taskId, reminder: { id: 'd', body: 'd' } });
  await wire.tasks.end(taskId, 'FAILED');
  const expected = [
    ['displaced:a#k {"displacedBy":"b"}'],
    ['cancelled:c {}'],
    ['emitted:b#k {"turn":1}'],
    ['expired:b#k {"lastTurn":1,"turnsSurfaced":1}', 'dropped:d {"taskState":"TASK_STATE_FAILED"}'],
  ];
  for (const [i, watch] of watches.entries()) {
    await watch.untilEnded();
    expect({
      binding: BINDINGS[i],
      batches: watch.batches().map((b) => b.map(eventSummary)),
    }).toEqual({
      binding: BINDINGS[i],
      batches: expected,
    });
    expect(watch.error).toBeUndefined();
  }
});
