import type { AgentCard } from '@a2a-js/sdk';
import { A2A_VERSION_HEADER, Extensions, HTTP_EXTENSION_HEADER } from '@a2a-js/sdk';
import type {
  RequestHeaders,
  ServerCallContext,
  ServerCallContextBuilder,
  ServerCallContextBuilderOptions,
  User,
} from '@a2a-js/sdk/server';
import { defaultServerCallContextBuilder, validateVersion } from '@a2a-js/sdk/server';
import type { ProtocolBinding } from './bindings.js';
import { ReminderError } from './errors.js';

export interface BuildCallContextOptions {
  /** The caller, as the binding's SDK UserBuilder resolved it. */
  readonly user: User | undefined;
  /** Request headers (express `req.headers`) or gRPC metadata converted to strings. */
  readonly headers: RequestHeaders;
  /** JSON-RPC: `params.tenant`; REST: the `/{tenant}/…` path segment; gRPC: the request's `tenant` field. */
  readonly tenant?: string | undefined;
  readonly binding: ProtocolBinding;
  /** The card whose supportedInterfaces decide which A2A-Version values are served (R4). */
  readonly agentCard: AgentCard;
  /** The same contextBuilder given to the SDK's handler, if any. */
  readonly contextBuilder?: ServerCallContextBuilder | undefined;
}

/**
 * The named header, its values joined (`first`: only the first). Node and
 * grpc-js give header names in lower case, so a direct read finds them
 * without copying every header into an array; the case-blind scan is for
 * headers built by hand.
 */
function header(headers: RequestHeaders, wanted: string, first: boolean): string | undefined {
  let value = headers[wanted];
  if (value === undefined) {
    for (const key of Object.keys(headers)) {
      if (key.toLowerCase() !== wanted || headers[key] === undefined) continue;
      value = headers[key];
      break;
    }
  }
  if (!Array.isArray(value)) return value;
  return first ? value[0] : value.join(',');
}

/** Lower-case names, computed once. */
const VERSION_HEADER = A2A_VERSION_HEADER.toLowerCase();
const EXTENSION_HEADER = HTTP_EXTENSION_HEADER.toLowerCase();

/**
 * Builds the ServerCallContext for a reminder rpc exactly as the SDK's
 * jsonRpcHandler, restHandler and grpcService build theirs, so the caller
 * resolves to the same user, tenant and owner scope as for GetTask (R7):
 * the builder gets the parsed `A2A-Extensions` header, the user, the raw
 * headers and `A2A-Version` (absent means 0.3, like the SDK); JSON-RPC sets
 * the tenant afterwards from `params.tenant` like the SDK does; then the
 * version is validated against the card for this binding (R4).
 * Throws only ReminderError (VERSION_NOT_SUPPORTED, or INTERNAL).
 */
export function buildCallContext(options: BuildCallContextOptions): ServerCallContext {
  try {
    const builder = options.contextBuilder ?? defaultServerCallContextBuilder;
    const requestedVersion = header(options.headers, VERSION_HEADER, true) || undefined;
    const input: ServerCallContextBuilderOptions = {
      extensions: Extensions.parseServiceParameter(
        header(options.headers, EXTENSION_HEADER, false),
      ),
      user: options.user,
      headers: options.headers,
      ...(requestedVersion === undefined ? {} : { requestedVersion }),
    };
    let context: ServerCallContext;
    if (options.binding === 'JSONRPC') {
      context = builder(input);
      if (options.tenant) context.setTenant(options.tenant);
    } else {
      // REST passes `req.params.tenant || undefined`; gRPC passes the request's field as is.
      const tenant = options.binding === 'HTTP+JSON' ? options.tenant || undefined : options.tenant;
      context = builder(tenant === undefined ? input : { ...input, tenant });
    }
    validateVersion(context.requestedVersion, options.agentCard, options.binding);
    return context;
  } catch (error) {
    const refused = ReminderError.from(error);
    if (refused.code !== 'VERSION_NOT_SUPPORTED') throw refused;
    // R4: the SDK's message names only the refused version ('0.3' when the
    // header is missing); say what to send, so a raw caller can fix the call.
    const served = options.agentCard.supportedInterfaces.some(
      (i) => i.protocolBinding === options.binding,
    );
    const hint = served
      ? `Send one of them in the ${A2A_VERSION_HEADER} header (gRPC metadata ` +
        `${A2A_VERSION_HEADER.toLowerCase()}); a call without it asks for 0.3.`
      : `This agent serves no A2A version on ${options.binding}.`;
    const message = `${refused.message.trimEnd().replace(/[.:]?$/, '.')} ${hint}`;
    throw new ReminderError('VERSION_NOT_SUPPORTED', message, {
      metadata: refused.metadata,
      cause: refused.cause,
    });
  }
}
