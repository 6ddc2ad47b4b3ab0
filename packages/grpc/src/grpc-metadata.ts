import type { RequestHeaders } from '@a2a-js/sdk/server';
import { Metadata } from '@grpc/grpc-js';

/** The gRPC metadata key of A2A's `A2A-Extensions` service parameter (A2A v1.0 §3.2.6). */
const A2A_EXTENSIONS_METADATA_KEY = 'a2a-extensions';

/**
 * A call's metadata as the headers the SDK's `grpcService` builds its
 * context from (W7): each key's value as a string, and every
 * `a2a-extensions` value joined, as the SDK joins them (`getMap` keeps only
 * the first value of a key).
 */
export function metadataHeaders(metadata: Metadata): RequestHeaders {
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(metadata.getMap())) {
    headers[key] = value.toString();
  }
  const extensions = metadata.get(A2A_EXTENSIONS_METADATA_KEY);
  if (extensions.length > 1) {
    headers[A2A_EXTENSIONS_METADATA_KEY] = extensions.map((v) => v.toString()).join(',');
  }
  return headers;
}

/** Response metadata echoing the extensions the call activated, as the SDK does. */
export function activatedExtensionsMetadata(activated: readonly string[] | undefined): Metadata {
  const metadata = new Metadata();
  if (activated?.length) metadata.set(A2A_EXTENSIONS_METADATA_KEY, activated.join(','));
  return metadata;
}
