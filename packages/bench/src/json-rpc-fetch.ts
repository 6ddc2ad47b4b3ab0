import { A2A_HEADERS, HTTP_PATHS } from './wire.js';

let nextId = 0;

/** One JSON-RPC call to the bench server's extension-mounted endpoint; throws on an error reply. */
export async function jsonRpc<T>(httpPort: number, method: string, params: unknown): Promise<T> {
  nextId += 1;
  const res = await fetch(`http://127.0.0.1:${httpPort}${HTTP_PATHS.jsonrpc}`, {
    method: 'POST',
    headers: { ...A2A_HEADERS, 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: nextId, method, params }),
  });
  const reply = (await res.json()) as { result?: T; error?: unknown };
  if (reply.result === undefined) {
    throw new Error(`${method}: ${JSON.stringify(reply.error ?? reply)}`);
  }
  return reply.result;
}

/** Runs `jobs` with at most `width` in flight. */
export async function inParallel(width: number, jobs: Array<() => Promise<void>>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const job = jobs[next];
      next += 1;
      await job?.();
    }
  };
  await Promise.all(Array.from({ length: width }, worker));
}
