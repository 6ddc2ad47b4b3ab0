import type { BadRequest, ErrorInfo, Status } from '@a2a-reminders/proto';
import { reminderTypeRegistry, StatusSchema } from '@a2a-reminders/proto';
import { fromBinary } from '@bufbuild/protobuf';
import { anyUnpack } from '@bufbuild/protobuf/wkt';
import * as grpc from '@grpc/grpc-js';
import { GRPC_STATUS_DETAILS_BIN } from '../status-details-bin.js';

export interface RawResult {
  readonly response?: Buffer;
  readonly error?: grpc.ServiceError;
  readonly headers?: grpc.Metadata;
}

const identity = (b: Buffer) => b;

/** Sends raw bytes to a path, so tests control exactly what goes on the wire. */
export function callRaw(
  target: string,
  path: string,
  bytes: Buffer,
  metadata: Record<string, string | string[]> = {},
): Promise<RawResult> {
  const client = new grpc.Client(target, grpc.credentials.createInsecure());
  const md = new grpc.Metadata();
  for (const [key, value] of Object.entries(metadata)) {
    for (const v of [value].flat()) md.add(key, v);
  }
  return new Promise((resolve) => {
    let headers: grpc.Metadata | undefined;
    const call = client.makeUnaryRequest(path, identity, identity, bytes, md, (error, response) => {
      client.close();
      resolve({
        ...(error ? { error } : {}),
        ...(response ? { response } : {}),
        ...(headers ? { headers } : {}),
      });
    });
    call.on('metadata', (m: grpc.Metadata) => {
      headers = m;
    });
  });
}

/** The google.rpc.Status of a grpc-js error's `grpc-status-details-bin`, with its details unpacked. */
export function decodeStatusDetails(error: grpc.ServiceError): {
  status: Status;
  details: Array<ErrorInfo | BadRequest>;
} {
  const [bin] = error.metadata.get(GRPC_STATUS_DETAILS_BIN);
  if (!(bin instanceof Buffer)) throw new Error(`no ${GRPC_STATUS_DETAILS_BIN} trailer`);
  const status = fromBinary(StatusSchema, bin);
  const details = status.details.map((any) => {
    const unpacked = anyUnpack(any, reminderTypeRegistry);
    if (unpacked === undefined) throw new Error(`unknown detail ${any.typeUrl}`);
    return unpacked as ErrorInfo | BadRequest;
  });
  return { status, details };
}
