import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { PUSH_TOKEN_HEADER, PushReceiver } from './push-receiver.js';

const update = (state: string) =>
  JSON.stringify({ statusUpdate: { taskId: 't1', contextId: 'c1', status: { state } } });

let receiver: PushReceiver | undefined;
afterEach(async () => {
  await receiver?.close();
});

describe('the push receiver', () => {
  it('refuses what is not its notification, keeps serving, and hands out the rest in order', async () => {
    const refused: string[] = [];
    receiver = await PushReceiver.start({ port: 0, onRefused: (r) => refused.push(r) });
    const post = (body: string, headers: Record<string, string> = {}, method = 'POST') =>
      fetch(receiver?.url ?? '', {
        method,
        headers: { 'content-type': 'application/json', ...headers },
        ...(method === 'GET' ? {} : { body }),
      });
    const token = { [PUSH_TOKEN_HEADER]: receiver.token };
    expect((await post('', {}, 'GET')).status).toBe(405);
    expect((await post(update('TASK_STATE_WORKING'))).status).toBe(401);
    expect((await post(update('TASK_STATE_WORKING'), { [PUSH_TOKEN_HEADER]: 'x' })).status).toBe(
      401,
    );
    expect((await post('{"statusUpdate":', token)).status).toBe(400);
    expect((await post(JSON.stringify({ padding: 'x'.repeat(1024 * 1024) }), token)).status).toBe(
      413,
    );
    // A sender that hangs up mid-body is reported; the receiver serves on.
    const url = new URL(receiver.url);
    await new Promise<void>((resolve) => {
      const socket = connect(Number(url.port), url.hostname, () => {
        socket.write(
          `POST /a2a-push HTTP/1.1\r\nHost: x\r\n${PUSH_TOKEN_HEADER}: ${receiver?.token}\r\n` +
            'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"statusUp',
        );
        setImmediate(() => {
          socket.destroy();
          resolve();
        });
      });
    });
    expect((await post(update('TASK_STATE_WORKING'), token)).status).toBe(204);
    expect((await post(update('TASK_STATE_COMPLETED'), token)).status).toBe(204);

    const states: string[] = [];
    for await (const item of receiver.items()) {
      if (item.payload?.$case === 'statusUpdate')
        states.push(String(item.payload.value.status?.state));
    }
    // It ended at the terminal update.
    expect(states).toHaveLength(2);
    expect(refused.slice(0, 5)).toEqual([
      'GET is not a notification',
      'a notification without this receiver’s token',
      'a notification without this receiver’s token',
      expect.stringMatching(/^a notification that is not a StreamResponse: /),
      'a notification over 1048576 bytes',
    ]);
    await expect.poll(() => refused.length).toBe(6);
    expect(refused[5]).toMatch(/^a notification cut short: /);
  });
});
