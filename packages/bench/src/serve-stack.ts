import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as grpc from '@grpc/grpc-js';
import type { BenchStack } from './bench-stack.js';

/** A bench stack listening on loopback: its ports, and how to stop it. */
export interface ServedStack {
  readonly httpPort: number;
  readonly grpcPort: number;
  close(): void;
}

/** Serves the stack's HTTP listener and gRPC server on free loopback ports. */
export async function serveBenchStack(stack: BenchStack): Promise<ServedStack> {
  const grpcPort = await new Promise<number>((resolve, reject) => {
    stack.grpcServer.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, port) =>
      e ? reject(e) : resolve(port),
    );
  });
  const http: Server = await new Promise((resolve) => {
    const s = createServer(stack.listener).listen(0, '127.0.0.1', () => resolve(s));
  });
  // Keep-alive clients must not see their sockets closed mid-slice.
  http.keepAliveTimeout = 60_000;
  return {
    httpPort: (http.address() as AddressInfo).port,
    grpcPort,
    close: () => {
      stack.grpcServer.forceShutdown();
      http.closeAllConnections();
      http.close();
    },
  };
}
