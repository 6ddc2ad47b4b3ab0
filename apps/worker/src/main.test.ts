import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { AgentCard } from '@a2a-js/sdk';
import { TASK_REMINDERS_EXTENSION_URI } from '@a2a-reminders/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { exitOf, spawnMain, WORKER_MAIN } from './testing/spawn-main.js';

describe('worker process', () => {
  beforeAll(() => {
    if (!existsSync(WORKER_MAIN))
      throw new Error(`${WORKER_MAIN} is missing: build the worker first`);
  });

  it('prints one READY line, serves its card with three 1.0 interfaces, and exits 0 on SIGTERM', async () => {
    const worker = await spawnMain(['--port', '0', '--grpc-port', '0']);
    try {
      expect(worker.lines).toEqual([worker.ready[0]]);
      const base = worker.ready[1] ?? '';
      const card = (await (await fetch(`${base}/.well-known/agent-card.json`)).json()) as AgentCard;
      expect(card.supportedInterfaces).toEqual([
        {
          url: `${base}/a2a/jsonrpc`,
          protocolBinding: 'JSONRPC',
          tenant: '',
          protocolVersion: '1.0',
        },
        {
          url: `${base}/a2a/rest`,
          protocolBinding: 'HTTP+JSON',
          tenant: '',
          protocolVersion: '1.0',
        },
        { url: worker.ready[2], protocolBinding: 'GRPC', tenant: '', protocolVersion: '1.0' },
      ]);
      expect(card.capabilities?.streaming).toBe(true);
      expect(card.capabilities?.extensions).toEqual([
        expect.objectContaining({ uri: TASK_REMINDERS_EXTENSION_URI, required: false }),
      ]);
    } finally {
      worker.child.kill('SIGTERM');
    }
    expect(await exitOf(worker.child)).toBe(0);
  }, 20_000);

  it('exits 0 on SIGINT and frees its ports', async () => {
    const worker = await spawnMain(['--port', '0', '--grpc-port', '0']);
    worker.child.kill('SIGINT');
    expect(await exitOf(worker.child)).toBe(0);
    await expect(fetch(`${worker.ready[1]}/.well-known/agent-card.json`)).rejects.toThrow();
  }, 20_000);

  it('prints its usage for --help and refuses bad flags with exit code 2', () => {
    const help = spawnSync(process.execPath, [WORKER_MAIN, '--help'], { encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('--log-prompts');
    const bad = spawnSync(process.execPath, [WORKER_MAIN, '--turns', 'many'], { encoding: 'utf8' });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--turns must be an integer');
    // Two cold starts of the worker; generous for a loaded CI machine.
  }, 60_000);
});
