import type { ClientHttp2Session } from 'node:http2';
import { connect, constants } from 'node:http2';
import type { GrpcCase } from './cases.js';
import type { Outcome } from './outcome.js';
import { classifyGrpc, outcome, snippet } from './outcome.js';

/**
 * Sends gRPC cases as raw HTTP/2 requests, so that any frame bytes, length
 * prefixes and metadata can go out; reads `grpc-status` from the trailers
 * (or from the headers of a trailers-only answer).
 */
export class GrpcSender {
  private session: ClientHttp2Session | undefined;

  constructor(
    private readonly address: string,
    private readonly deadlineMs: number,
  ) {}

  private current(): ClientHttp2Session {
    if (this.session === undefined || this.session.closed || this.session.destroyed) {
      const session = connect(`http://${this.address}`);
      // A session-level error ends its streams; the next case opens a new session.
      session.on('error', () => {});
      session.on('goaway', () => {
        if (this.session === session) this.session = undefined;
      });
      this.session = session;
    }
    return this.session;
  }

  send(c: GrpcCase): Promise<Outcome> {
    return new Promise<Outcome>((resolve) => {
      let settled = false;
      let httpStatus: number | undefined;
      let grpcStatus: string | undefined;
      let grpcMessage: string | undefined;
      const finish = (o: Outcome) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(o);
      };
      const take = (headers: Record<string, unknown>) => {
        if (typeof headers['grpc-status'] === 'string') grpcStatus = headers['grpc-status'];
        if (typeof headers['grpc-message'] === 'string') grpcMessage = headers['grpc-message'];
      };
      let stream: ReturnType<ClientHttp2Session['request']>;
      try {
        stream = this.current().request({
          ':method': 'POST',
          ':path': c.path,
          te: 'trailers',
          ...c.headers,
        });
      } catch (error) {
        this.session = undefined;
        finish(outcome('closed', `could not open a stream: ${snippet(String(error), 80)}`));
        return;
      }
      const timer = setTimeout(() => {
        finish(outcome('hang', `no answer within ${this.deadlineMs} ms`));
        stream.close(constants.NGHTTP2_CANCEL);
      }, this.deadlineMs);
      stream.on('response', (headers) => {
        httpStatus = Number(headers[':status']);
        take(headers);
      });
      stream.on('trailers', (trailers) => take(trailers));
      stream.on('data', () => {});
      stream.on('end', () => finish(classifyGrpc(httpStatus, grpcStatus, grpcMessage)));
      stream.on('close', () => {
        if (httpStatus === undefined && grpcStatus === undefined) {
          finish(outcome('closed', `stream closed (RST ${stream.rstCode})`));
        } else {
          finish(classifyGrpc(httpStatus, grpcStatus, grpcMessage));
        }
      });
      stream.on('error', () => {});
      stream.end(Buffer.from(c.body));
    });
  }

  close(): void {
    this.session?.close();
    this.session = undefined;
  }
}
