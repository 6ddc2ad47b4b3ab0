import type { ServerCallContext } from '@a2a-js/sdk/server';
import type { ReminderRpc } from '@a2a-reminders/proto';
import type { Message } from '@bufbuild/protobuf';
import type { FieldViolation } from './errors.js';
import { ReminderError } from './errors.js';
import type { ReminderRpcHandler } from './service.js';

type UnaryCall = (
  request: Message,
  context: ServerCallContext,
  readViolations?: readonly FieldViolation[],
) => Promise<Message>;

/**
 * Calls the handler method named by the rpc's protobuf-es local name
 * (`injectTaskReminder` for InjectTaskReminder), so no rpc is listed by hand.
 * `readViolations` are the fields the binding could not read (R8); the
 * handler reports them after authentication and activation (R45).
 */
export function callReminderRpc(
  handler: ReminderRpcHandler,
  rpc: ReminderRpc,
  request: Message,
  context: ServerCallContext,
  readViolations: readonly FieldViolation[] = [],
): Promise<Message> {
  const method = (handler as unknown as Record<string, UnaryCall | undefined>)[
    rpc.method.localName
  ];
  if (typeof method !== 'function') {
    return Promise.reject(
      new ReminderError('UNIMPLEMENTED', `the reminder service does not implement ${rpc.name}`),
    );
  }
  // The handler's own promise, without an async frame around it (every
  // call); a handler that throws instead of rejecting still rejects.
  try {
    if (readViolations.length === 0) return method.call(handler, request, context);
    return method.call(handler, request, context, readViolations).then(() => {
      // A handler that ignored them still never answers success for a request
      // that was not read in full.
      throw ReminderError.invalidArgument(readViolations);
    });
  } catch (error) {
    return Promise.reject(error);
  }
}
