import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SpawnedWorker } from './testing/spawn-main.js';
import { exitOf, spawnMain } from './testing/spawn-main.js';

// Issue 15: the conformance kit, invoked the way its README says
// (`npx a2a-reminders-conformance --card-url …` at the repository root),
// against the example worker started for testing: every rule the kit can
// observe passes on all three bindings.

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

interface KitReportJson {
  readonly verdict: string;
  readonly bindings: ReadonlyArray<{
    readonly binding: string;
    readonly counts: {
      readonly pass: number;
      readonly fail: number;
      readonly notObservable: number;
    };
    readonly rules: ReadonlyArray<{ readonly rule: string; readonly status: string }>;
  }>;
}

describe('the conformance kit against the example worker', () => {
  let worker: SpawnedWorker;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'a2a-reminders-worker-kit-'));
    worker = await spawnMain([
      '--test-agent',
      '--store',
      'memory',
      '--port',
      '0',
      '--grpc-port',
      '0',
    ]);
  });

  afterAll(async () => {
    worker?.child.kill('SIGTERM');
    if (worker !== undefined) await exitOf(worker.child);
    await rm(dir, { recursive: true, force: true });
  });

  it('passes every observable rule on JSON-RPC, HTTP+JSON and gRPC', async () => {
    const cardUrl = `${worker.ready[1]}/.well-known/agent-card.json`;
    const json = join(dir, 'kit.json');
    const junit = join(dir, 'kit.xml');
    const child = spawn(
      'npx',
      [
        '--no',
        '--',
        'a2a-reminders-conformance',
        '--card-url',
        cardUrl,
        '--json',
        json,
        '--junit',
        junit,
      ],
      {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: Object.fromEntries(
          Object.entries(process.env).filter(
            ([k]) => !k.startsWith('A2A_REMINDERS_KIT_') && !k.startsWith('VITEST'),
          ),
        ),
      },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    const report = JSON.parse(await readFile(json, 'utf8')) as KitReportJson;
    const failed = report.bindings.flatMap((b) =>
      b.rules.filter((r) => r.status === 'fail').map((r) => `${b.binding} ${r.rule}`),
    );
    expect(failed, output).toEqual([]);
    expect(code, output).toBe(0);
    expect(report.verdict).toBe('pass');
    expect(report.bindings.map((b) => b.binding).sort()).toEqual(['grpc', 'jsonrpc', 'rest']);
    for (const binding of report.bindings) {
      // Most rules are observable from outside; the rest are reported with their reasons.
      expect(binding.counts.pass, binding.binding).toBeGreaterThan(binding.counts.notObservable);
    }
    const xml = await readFile(junit, 'utf8');
    expect(xml).toContain('<testsuite name="a2a-reminders.jsonrpc"');
    expect(output).toContain('R15');
  }, 600_000); // A hang guard only: the whole kit runs, in a process of its own.
});
