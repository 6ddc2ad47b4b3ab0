import type { MethodDefinition, UntypedServiceImplementation } from '@grpc/grpc-js';
import type { Request, Response } from 'express';

/** The express no-op ceiling (README, What it measures): body parsed by express.json(), tiny JSON reply. */
export function expressNoop(req: Request, res: Response): void {
  const body = req.body as { n?: unknown } | undefined;
  res.json({ ok: true, n: body?.n ?? null });
}

export const GRPC_NOOP_PATH = '/bench.Noop/Noop';

type Json = { n?: unknown };

const noopMethod: MethodDefinition<Json, Json> = {
  path: GRPC_NOOP_PATH,
  requestStream: false,
  responseStream: false,
  requestSerialize: (value) => Buffer.from(JSON.stringify(value)),
  requestDeserialize: (bytes) => JSON.parse(bytes.toString('utf8')) as Json,
  responseSerialize: (value) => Buffer.from(JSON.stringify(value)),
  responseDeserialize: (bytes) => JSON.parse(bytes.toString('utf8')) as Json,
};

/** The grpc-js no-op ceiling: JSON request parsed, tiny JSON reply. */
export const grpcNoopDefinition = { noop: noopMethod };

export const grpcNoopImplementation: UntypedServiceImplementation = {
  noop: (call: { request: Json }, callback: (error: null, value: Json) => void) => {
    callback(null, { n: call.request.n ?? null });
  },
};
