import type { Agent } from 'node:http';
import { request } from 'node:http';

export interface HttpReply {
  readonly status: number;
  readonly body: string;
}

/** One HTTP/1.1 request to 127.0.0.1 over the keep-alive agent; resolves with status and body. */
export function httpCall(
  agent: Agent,
  port: number,
  method: 'GET' | 'POST',
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<HttpReply> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, agent, headers }, (res) => {
      res.setEncoding('utf8');
      let text = '';
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}
