import type { AgentCard } from '@a2a-js/sdk';
import type {
  A2ARequestHandler,
  RequestHeaders,
  ServerCallContext,
  ServerCallContextBuilder,
  User,
} from '@a2a-js/sdk/server';
import type { ReminderRpc } from '@a2a-reminders/proto';
import type { Message } from '@bufbuild/protobuf';
import type { ProtocolBinding } from './bindings.js';
import { buildCallContext } from './call-context.js';
import { callReminderRpc } from './dispatch.js';
import { ReminderError } from './errors.js';
import type { ReadRequest } from './read-request.js';
import type { ReminderRpcHandler } from './service.js';

/** Default limit of one reminder request, in bytes, on every binding (W12). */
export const DEFAULT_MAX_REQUEST_BYTES = 64 * 1024;

/**
 * What every binding is given, next to the SDK's handler of that binding:
 * pass the same requestHandler, userBuilder and contextBuilder as to the SDK,
 * so both resolve the caller the same way (W7). `U` is the binding's
 * UserBuilder type (express's, or grpc's).
 */
export interface ReminderBindingOptions<U> {
  /** The reminder service (core's `createReminderService`, or any ReminderRpcHandler). */
  readonly reminders: ReminderRpcHandler;
  /** The SDK request handler of the binding; only its agent card is read (version check, R4). */
  readonly requestHandler: Pick<A2ARequestHandler, 'getAgentCard'>;
  /** The same UserBuilder given to the SDK's handler. */
  readonly userBuilder: U;
  /** The same context builder given to the SDK's handler, if any. */
  readonly contextBuilder?: ServerCallContextBuilder | undefined;
}

/** One reminder call as a binding took it off the wire. */
export interface ReminderCall {
  readonly reminders: ReminderRpcHandler;
  readonly rpc: ReminderRpc;
  readonly binding: ProtocolBinding;
  /** Request headers, or gRPC metadata as strings. */
  readonly headers: RequestHeaders;
  /** The tenant as the binding's SDK handler takes it (see `buildCallContext`). */
  readonly tenant: string | undefined;
  /** Resolves the caller with the binding's UserBuilder. */
  readonly user: () => Promise<User | undefined>;
  readonly requestHandler: Pick<A2ARequestHandler, 'getAgentCard'>;
  readonly contextBuilder?: ServerCallContextBuilder | undefined;
  /**
   * Reads the request; called once the caller is resolved. It never refuses
   * the call itself: what it could not read is a violation the service
   * reports after authentication and activation (R45).
   */
  readonly read: () => ReadRequest;
}

/** How a reminder call ended; `activatedExtensions` is what the binding echoes (undefined: no context). */
export type ReminderCallOutcome =
  | {
      readonly ok: true;
      readonly response: Message;
      readonly activatedExtensions: readonly string[] | undefined;
    }
  | {
      readonly ok: false;
      readonly error: ReminderError;
      readonly activatedExtensions: readonly string[] | undefined;
    };

/**
 * The steps every binding's SDK handler takes for its own methods, for a
 * reminder rpc: resolve the user, build the context (tenant, extensions,
 * A2A-Version checked against the card, R4, W7), read the request, call the
 * service. Never throws: any failure is the outcome's ReminderError.
 */
export async function runReminderCall(call: ReminderCall): Promise<ReminderCallOutcome> {
  let context: ServerCallContext | undefined;
  try {
    const user = await call.user();
    const agentCard: AgentCard = await call.requestHandler.getAgentCard();
    context = buildCallContext({
      user,
      headers: call.headers,
      tenant: call.tenant,
      binding: call.binding,
      agentCard,
      contextBuilder: call.contextBuilder,
    });
    const read = call.read();
    const response = await callReminderRpc(
      call.reminders,
      call.rpc,
      read.request,
      context,
      read.violations,
    );
    return { ok: true, response, activatedExtensions: context.activatedExtensions };
  } catch (thrown) {
    const error = ReminderError.from(thrown);
    if (error.code === 'UNAVAILABLE') {
      // R69: an outage is the operator's to see, one line per call on every binding, not a stack.
      console.error(`${call.binding} ${call.rpc.name} unavailable: ${innermostMessage(error)}`);
    }
    return { ok: false, error, activatedExtensions: context?.activatedExtensions };
  }
}

/** The innermost cause's message, on one line. */
function innermostMessage(error: Error): string {
  let inner: unknown = error;
  while (inner instanceof Error && inner.cause !== undefined) inner = inner.cause;
  const text = inner instanceof Error ? inner.message : String(inner);
  return text.replace(/\s+/g, ' ');
}
