import { Agent, request } from 'node:http';
import type { HttpCase } from './cases.js';
import type { Outcome } from './outcome.js';
import { classifyJsonRpc, classifyRest, outcome, snippet } from './outcome.js';

/** Sends HTTP cases over keep-alive connections, each with its own deadline. */
export class HttpSender {
  private readonly agent: Agent;

  constructor(
    private readonly baseUrl: string,
    concurrency: number,
    private readonly deadlineMs: number,
  ) {
    this.agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  }

  send(c: HttpCase, binding: 'jsonrpc' | 'rest'): Promise<Outcome> {
    const url = new URL(this.baseUrl);
    return new Promise<Outcome>((resolve) => {
      let settled = false;
      const finish = (o: Outcome) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(o);
      };
      const body = c.body === undefined ? undefined : Buffer.from(c.body);
      const req = request(
        {
          agent: this.agent,
          host: url.hostname,
          port: url.port,
          method: c.method,
          // Sent as generated, odd escapes and all.
          path: c.path,
          headers: {
            ...c.headers,
            ...(body === undefined ? {} : { 'Content-Length': String(body.length) }),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (d: Buffer) => chunks.push(d));
          res.on('error', () => finish(outcome('closed', 'response cut off')));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            const status = res.statusCode ?? 0;
            finish(
              binding === 'jsonrpc'
                ? classifyJsonRpc(
                    status,
                    text,
                    c.notification === true,
                    c.method,
                    c.silentOk === true,
                  )
                : classifyRest(status, text, c.method),
            );
          });
        },
      );
      const timer = setTimeout(() => {
        finish(outcome('hang', `no answer within ${this.deadlineMs} ms`));
        req.destroy();
      }, this.deadlineMs);
      req.on('error', (error: NodeJS.ErrnoException) =>
        finish(outcome('closed', `${error.code ?? ''} ${snippet(error.message, 80)}`)),
      );
      if (body !== undefined) req.write(body);
      req.end();
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
