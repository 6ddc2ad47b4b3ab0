import { UnsupportedOperationError } from '@a2a-js/sdk/errors';
import type { A2ARequestHandler, OwnerResolver, ServerCallContext } from '@a2a-js/sdk/server';
import { resolveUserScope } from '@a2a-js/sdk/server';
import type { TaskLeaseKeeper } from './lease-keeper.js';

/**
 * R74: one agent loop per task across the replicas. A message for a task
 * whose execution runs on another replica (that replica's live lease names
 * it) is refused here, before the SDK starts a second execution, with A2A's
 * UnsupportedOperationError naming the reason; the caller sends it to the
 * replica running the task (sticky routing) or after the task stops. A
 * returned execution (INPUT_REQUIRED) holds no such lease, so its follow-up
 * runs wherever it lands, as before.
 */
export function refuseFollowUpsElsewhere(
  handler: A2ARequestHandler,
  keeper: Pick<TaskLeaseKeeper, 'runningElsewhere'>,
  ownerResolver: OwnerResolver = resolveUserScope,
): A2ARequestHandler {
  const check = async (taskId: string | undefined, context: ServerCallContext) => {
    if (taskId === undefined || taskId === '') return;
    const key = { tenant: context.tenant ?? '', owner: ownerResolver(context), taskId };
    if ((await keeper.runningElsewhere(key)) === undefined) return;
    throw new UnsupportedOperationError({
      message:
        `Task ${taskId} is running on another replica of this agent; send messages for it ` +
        'to that replica, or again once the task has stopped.',
      metadata: { taskId },
    });
  };
  return new Proxy(handler, {
    get(target, property, receiver) {
      if (property === 'sendMessage') {
        return async (...args: Parameters<A2ARequestHandler['sendMessage']>) => {
          await check(args[0].message?.taskId, args[1]);
          return target.sendMessage(...args);
        };
      }
      if (property === 'sendMessageStream') {
        return async function* (...args: Parameters<A2ARequestHandler['sendMessageStream']>) {
          await check(args[0].message?.taskId, args[1]);
          yield* target.sendMessageStream(...args);
        };
      }
      const value = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
