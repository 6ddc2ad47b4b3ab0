import http2 from 'node:http2';
import { ListTaskRemindersRequestSchema } from '@a2a-reminders/proto';
import { create, toBinary } from '@bufbuild/protobuf';
import { expect } from 'vitest';
import { verifies } from '../harness/verifies.js';

interface TransportAnswer {
  readonly grpcStatus: string | undefined;
  readonly grpcMessage: string | undefined;
}

/**
 * One unary call framed by hand over HTTP/2, so the case can send a
 * `grpc-timeout` that no gRPC client library would let through.
 */
function callWithHeaders(
  target: string,
  path: string,
  message: Uint8Array,
  headers: Record<string, string>,
): Promise<TransportAnswer> {
  const frame = Buffer.alloc(5 + message.length);
  frame.writeUInt32BE(message.length, 1);
  frame.set(message, 5);
  return new Promise((resolve, reject) => {
    const session = http2.connect(`http://${target}`);
    session.on('error', reject);
    const stream = session.request({
      ':method': 'POST',
      ':path': path,
      'content-type': 'application/grpc',
      te: 'trailers',
      ...headers,
    });
    let answer: TransportAnswer = { grpcStatus: undefined, grpcMessage: undefined };
    const take = (h: http2.IncomingHttpHeaders) => {
      if (h['grpc-status'] !== undefined) {
        answer = {
          grpcStatus: String(h['grpc-status']),
          grpcMessage: decodeURIComponent(String(h['grpc-message'] ?? '')),
        };
      }
    };
    stream.on('response', take);
    stream.on('trailers', take);
    stream.on('data', () => {});
    stream.on('error', reject);
    stream.on('close', () => {
      session.close();
      resolve(answer);
    });
    stream.end(frame);
  });
}

verifies('W15-grpc-transport-errors', async ({ wire }) => {
  const taskId = await wire.tasks.create();
  const list = toBinary(
    ListTaskRemindersRequestSchema,
    create(ListTaskRemindersRequestSchema, { taskId }),
  );
  const headers = {
    'a2a-version': '1.0',
    'a2a-extensions': 'https://a2a-reminders.dev/extensions/task-reminders/v1',
    'grpc-timeout': 'abc',
  };
  const ours = await callWithHeaders(
    wire.stack.grpcTarget,
    '/a2a.reminders.v1.TaskReminderService/ListTaskReminders',
    list,
    headers,
  );
  expect(ours).toEqual({ grpcStatus: '13', grpcMessage: 'Invalid grpc-timeout value "abc"' });
  // A2A's own service on the same server answers the same: it is the runtime's answer.
  const stock = await callWithHeaders(
    wire.stack.grpcTarget,
    '/lf.a2a.v1.A2AService/GetTask',
    new Uint8Array(),
    headers,
  );
  expect(stock).toEqual(ours);
  // And the server keeps serving.
  const listed = await wire.client.listTaskReminders({ taskId });
  expect(listed.reminders).toEqual([]);
});
