import { SendMessageRequest, TaskState } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import { createBenchStack } from './bench-stack.js';
import { benchCaller } from './seed-tasks.js';
import { sendReminderJson } from './send-reminder-request.js';

describe('FollowUpPool', () => {
  it("cuts the previous pool's histories back to the seed's message when it seeds a new one", async () => {
    const stack = createBenchStack({}, undefined, undefined, 3);
    try {
      await renewTwice(stack);
    } finally {
      stack.grpcServer.forceShutdown();
    }
  });

  it("cuts the pool's histories back and leaves no pool when it is retired", async () => {
    const stack = createBenchStack({}, undefined, undefined, 2);
    try {
      const pool = stack.followUpPool;
      await pool.renew();
      const refs = [...pool.tasks];
      for (const [n, ref] of refs.entries()) {
        const request = SendMessageRequest.fromJSON(sendReminderJson(ref, `follow-${n}`));
        await stack.requestHandler.sendMessage(request, benchCaller());
      }
      expect(await pool.history()).toEqual({ tasks: 2, meanMessages: 2, maxMessages: 2 });

      expect(refs.every((ref) => stack.executor.running(ref.id) !== undefined)).toBe(true);

      await pool.retire();
      // No pool is left, so its history must be read before it is retired (run-bench.ts).
      expect(pool.tasks).toEqual([]);
      expect(await pool.history()).toEqual({ tasks: 0, meanMessages: 0, maxMessages: 0 });
      for (const [n, ref] of refs.entries()) {
        expect(stack.executor.running(ref.id)).toBeUndefined();
        const task = await stack.taskStore.load(ref.id, benchCaller());
        expect(task?.status?.state).toBe(TaskState.TASK_STATE_WORKING);
        expect(task?.history.map((m) => m.messageId)).toEqual([`followup1-${n}`]);
      }
      // The benchmark's order: retired after a slice, then a fresh pool seeded before the next.
      await pool.renew();
      expect(pool.tasks).toHaveLength(2);
      expect(pool.tasks.map((t) => t.id)).not.toContain(refs[0]?.id);
      expect(await pool.history()).toEqual({ tasks: 2, meanMessages: 1, maxMessages: 1 });
    } finally {
      stack.grpcServer.forceShutdown();
    }
  });
});

async function renewTwice(stack: ReturnType<typeof createBenchStack>): Promise<void> {
  const pool = stack.followUpPool;
  await pool.renew();
  const first = [...pool.tasks];
  for (const [n, ref] of first.entries()) {
    for (let k = 0; k < 2; k += 1) {
      const request = SendMessageRequest.fromJSON(sendReminderJson(ref, `follow-${n}-${k}`));
      await stack.requestHandler.sendMessage(request, benchCaller());
    }
  }
  expect(await pool.history()).toEqual({ tasks: 3, meanMessages: 3, maxMessages: 3 });

  await pool.renew();
  expect(pool.tasks.map((t) => t.id)).not.toContain(first[0]?.id);
  for (const [n, ref] of first.entries()) {
    const task = await stack.taskStore.load(ref.id, benchCaller());
    expect(task?.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    // The seed's message alone: pool 1's task n was seeded with message `followup1-<n>`.
    expect(task?.history.map((m) => m.messageId)).toEqual([`followup1-${n}`]);
  }
  // The new pool is fresh: its tasks hold their seed's message alone.
  expect(await pool.history()).toEqual({ tasks: 3, meanMessages: 1, maxMessages: 1 });
}
