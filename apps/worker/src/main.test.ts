import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentCard } from '@a2a-js/sdk';
import { TASK_REMINDERS_EXTENSION_URI } from '@a2a-reminders/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { exitOf, spawnMain, WORKER_MAIN } from './testing/spawn-main.js';

describe('worker process', () => {
  beforeAll(() => {
    if (!existsSync(WORKER_MAIN))
      throw new Error(`${WORKER_MAIN} is missing: build the worker first`);
  });

  it('prints where its data lives and one READY line, serves its card with three 1.0 interfaces, and exits 0 on SIGTERM', async () => {
    const worker = await spawnMain(['--port', '0', '--grpc-port', '0', '--store', 'memory']);
    try {
      expect(worker.lines).toEqual(['STORE memory', worker.ready[0]]);
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
      expect(card.capabilities?.pushNotifications).toBe(true);
      expect(card.capabilities?.extensions).toEqual([
        expect.objectContaining({ uri: TASK_REMINDERS_EXTENSION_URI, required: false }),
      ]);
    } finally {
      worker.child.kill('SIGTERM');
    }
    expect(await exitOf(worker.child)).toBe(0);
  });

  it('keeps tasks and reminders in a SQLite file in the working directory by default, and prints its path', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'worker-default-store-'));
    try {
      const worker = await spawnMain(['--port', '0', '--grpc-port', '0'], { cwd: dir });
      const file = join(dir, 'a2a-reminders-worker.sqlite');
      expect(worker.lines[0]).toBe(`STORE sqlite:${file}`);
      expect(existsSync(file)).toBe(true);
      worker.child.kill('SIGTERM');
      expect(await exitOf(worker.child)).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('exits 0 on SIGINT and frees its ports', async () => {
    const worker = await spawnMain(['--port', '0', '--grpc-port', '0', '--store', 'memory']);
    worker.child.kill('SIGINT');
    expect(await exitOf(worker.child)).toBe(0);
    await expect(fetch(`${worker.ready[1]}/.well-known/agent-card.json`)).rejects.toThrow();
  });

  it('prints its usage for --help and refuses bad flags with exit code 2', () => {
    const help = spawnSync(process.execPath, [WORKER_MAIN, '--help'], { encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('--log-prompts');
    const bad = spawnSync(process.execPath, [WORKER_MAIN, '--turns', 'many'], { encoding: 'utf8' });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--turns must be an integer');
  });
});
