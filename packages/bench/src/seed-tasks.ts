import { SendMessageRequest, TaskState } from '@a2a-js/sdk';
import type { A2ARequestHandler } from '@a2a-js/sdk/server';
import { ServerCallContext, UnauthenticatedUser } from '@a2a-js/sdk/server';
import type { TaskRef } from './send-reminder-request.js';

/**
 * A context of the unauthenticated v1.0 caller every bench request resolves
 * to, whose scope of the SDK's task store holds the seeded tasks; with the
 * extensions the call activates, if any.
 */
export function benchCaller(requestedExtensions?: string[]): ServerCallContext {
  return new ServerCallContext({
    user: new UnauthenticatedUser(),
    requestedVersion: '1.0',
    ...(requestedExtensions === undefined ? {} : { requestedExtensions }),
  });
}

/**
 * Creates `count` WORKING tasks with SendMessage(returnImmediately) as the
 * unauthenticated caller every bench request resolves to (README, What it measures).
 */
export async function seedTaskRefs(
  handler: A2ARequestHandler,
  count: number,
  tag = 'seed',
): Promise<TaskRef[]> {
  const refs: TaskRef[] = [];
  for (let i = 0; i < count; i += 1) {
    const context = benchCaller();
    const request = SendMessageRequest.fromJSON({
      message: {
        messageId: `${tag}-${i}`,
        role: 'ROLE_USER',
        parts: [{ text: `${tag} task ${i}` }],
      },
      configuration: { returnImmediately: true },
    });
    const result = await handler.sendMessage(request, context);
    if (!('status' in result) || result.status?.state !== TaskState.TASK_STATE_WORKING) {
      throw new Error(`seeding task ${i} did not return a WORKING task`);
    }
    refs.push({ id: result.id, contextId: result.contextId });
  }
  return refs;
}

/** {@link seedTaskRefs}, the ids only. */
export async function seedTasks(handler: A2ARequestHandler, count: number): Promise<string[]> {
  return (await seedTaskRefs(handler, count)).map((ref) => ref.id);
}
