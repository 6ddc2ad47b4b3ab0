import type {
  A2ARequestHandler,
  ServerCallContext,
  ServerCallContextBuilder,
} from '@a2a-js/sdk/server';
import type { UserBuilder } from '@a2a-js/sdk/server/grpc';
import { buildCallContext } from '@a2a-reminders/core';
import type { ServerUnaryCall } from '@grpc/grpc-js';
import { Metadata } from '@grpc/grpc-js';

/** The gRPC metadata key of A2A's `A2A-Extensions` service parameter (A2A v1.0 §3.2.6). */
export const A2A_EXTENSIONS_METADATA_KEY = 'a2a-extensions';

export interface GrpcCallContextOptions {
  readonly requestHandler: A2ARequestHandler;
  readonly userBuilder: UserBuilder;
  readonly contextBuilder?: ServerCallContextBuilder;
}

/**
 * Resolves the caller of a gRPC call exactly as the SDK's `grpcService` does
 * (its `_buildContext`): the same UserBuilder on the call, the headers from the
 * metadata, every `a2a-extensions` value, `a2a-version`, the tenant from the
 * request, and the A2A-Version check against the card's GRPC interfaces
 * (issue 4: a reminder reaches only a task the same caller could GetTask).
 */
export async function buildGrpcCallContext(
  call: ServerUnaryCall<unknown, unknown>,
  tenant: string,
  options: GrpcCallContextOptions,
): Promise<ServerCallContext> {
  const user = await options.userBuilder(call);
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(call.metadata.getMap())) {
    headers[key] = value.toString();
  }
  // getMap keeps only the first value of a key; the SDK joins every
  // a2a-extensions value, so the extensions parsed from headers must too.
  const extensions = call.metadata.get(A2A_EXTENSIONS_METADATA_KEY);
  if (extensions.length > 1) {
    headers[A2A_EXTENSIONS_METADATA_KEY] = extensions.map((v) => v.toString()).join(',');
  }
  return buildCallContext({
    user,
    headers,
    tenant,
    binding: 'GRPC',
    agentCard: await options.requestHandler.getAgentCard(),
    contextBuilder: options.contextBuilder,
  });
}

/** Response metadata echoing the extensions the call activated, as the SDK does. */
export function activatedExtensionsMetadata(context: ServerCallContext): Metadata {
  const metadata = new Metadata();
  if (context.activatedExtensions?.length) {
    metadata.set(A2A_EXTENSIONS_METADATA_KEY, context.activatedExtensions.join(','));
  }
  return metadata;
}
