import { SendMessageRequest, TaskState } from '@a2a-js/sdk';
import type { A2ARequestHandler } from '@a2a-js/sdk/server';
import { ServerCallContext, UnauthenticatedUser } from '@a2a-js/sdk/server';

/**
 * Creates `count` WORKING tasks with SendMessage(returnImmediately) as the
 * unauthenticated caller every bench request resolves to (README, What it measures).
 */
export async function seedTasks(handler: A2ARequestHandler, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const context = new ServerCallContext({
      user: new UnauthenticatedUser(),
      requestedVersion: '1.0',
    });
    const request = SendMessageRequest.fromJSON({
      message: {
        messageId: `seed-${i}`,
        role: 'ROLE_USER',
        parts: [{ text: `seed task ${i}` }],
      },
      configuration: { returnImmediately: true },
    });
    const result = await handler.sendMessage(request, context);
    if (!('status' in result) || result.status?.state !== TaskState.TASK_STATE_WORKING) {
      throw new Error(`seeding task ${i} did not return a WORKING task`);
    }
    ids.push(result.id);
  }
  return ids;
}
