import type { ServerCallContext } from '@a2a-js/sdk/server';
import type { ReminderRpc } from '@a2a-reminders/proto';
import type { Message } from '@bufbuild/protobuf';
import { ReminderError } from './errors.js';
import type { ReminderRpcHandler } from './service.js';

type UnaryCall = (request: Message, context: ServerCallContext) => Promise<Message>;

/**
 * Calls the handler method named by the rpc's protobuf-es local name
 * (`injectTaskReminder` for InjectTaskReminder), so no rpc is listed by hand.
 */
export async function callReminderRpc(
  handler: ReminderRpcHandler,
  rpc: ReminderRpc,
  request: Message,
  context: ServerCallContext,
): Promise<Message> {
  const method = (handler as unknown as Record<string, UnaryCall | undefined>)[
    rpc.method.localName
  ];
  if (typeof method !== 'function') {
    throw new ReminderError('UNIMPLEMENTED', `the reminder service does not implement ${rpc.name}`);
  }
  return method.call(handler, request, context);
}
