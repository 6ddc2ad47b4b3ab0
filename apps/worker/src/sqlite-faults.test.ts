import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { AgentConnection, Binding } from '@a2a-reminders/client';
import { BINDINGS, connectToAgent } from '@a2a-reminders/client';
import { ReminderError, reminderPages, TASK_REMINDERS_EXTENSION_URI } from '@a2a-reminders/core';
import type { ErrorInfo } from '@a2a-reminders/proto';
import {
  ErrorInfoSchema,
  InjectTaskReminderRequestSchema,
  reminderTypeRegistry,
  StatusSchema,
  TaskReminderService,
} from '@a2a-reminders/proto';
import type { Ext4FileSystem } from '@a2a-reminders/test-support';
import {
  canMount,
  fillFileSystem,
  lockSqliteFromAnotherProcess,
  mountExt4,
  mountTmpfs,
} from '@a2a-reminders/test-support';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { anyUnpack } from '@bufbuild/protobuf/wkt';
import * as grpc from '@grpc/grpc-js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SpawnedWorker } from './testing/spawn-main.js';
import { exitOf, spawnMain } from './testing/spawn-main.js';

// R69 end to end: a real worker process on a SQLite file meets real faults
// (the file locked by another process past the worker's busy timeout, a full
// file system, a file system the kernel makes read-only), and every inject
// during the fault is answered UNAVAILABLE on each binding, on the wire:
// JSON-RPC -32000 with HTTP 503, REST 503, both with `Retry-After: 1`, gRPC
// status UNAVAILABLE; and through the reminder clients as ReminderError
// UNAVAILABLE. Before R69 each of them was INTERNAL (HTTP 500, gRPC
// INTERNAL). The worker stays up and GetTask answers during the fault; once
// the fault ends injects succeed and every acknowledged reminder is listed.
//
// Every wait is on an observed state (a READY line, a task's status, a line
// from a child process); deadlines only bound a failure. Mounting needs
// root: without it the file is skipped.

const BETTER_SQLITE3 = createRequire(import.meta.url).resolve('better-sqlite3');
/**
 * Hang guard for the lock case: three injects each wait out the worker's
 * busy timeout (10 s, connect.ts's default; the worker has no flag for it),
 * one after another.
 */
const LOCK_TEST_TIMEOUT_MS = 300_000;

function run(command: string, args: readonly string[]): string {
  return execFileSync(command, args, { stdio: 'pipe', encoding: 'utf8' });
}

const CAN_MOUNT = canMount();

/** Undone after each test, last first: clients and processes, then mounts. */
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) {
    try {
      await cleanup();
    } catch (error) {
      console.error('sqlite-faults cleanup failed', error);
    }
  }
});

/** A fresh tmpfs of `size` (e.g. `8m`), unmounted (lazily if still held) after the test. */
function freshTmpfs(size: string): string {
  const tmpfs = mountTmpfs({ size, prefix: 'worker-sqlite-faults-' });
  cleanups.push(() => tmpfs.remove());
  return tmpfs.dir;
}

/** Resolves once another process holds the database's write lock; `release()` commits and ends it. */
async function lockFromAnotherProcess(file: string): Promise<{ release(): Promise<void> }> {
  const lock = await lockSqliteFromAnotherProcess(file, BETTER_SQLITE3);
  cleanups.push(() => lock.kill());
  return {
    async release() {
      const { exitCode, lines } = await lock.release();
      expect(exitCode).toBe(0);
      expect(lines).toEqual(['LOCKED', 'RELEASED']);
    },
  };
}

/**
 * A 16 MiB ext4 image on a loop device, mounted errors=remount-ro, torn down
 * after the test; a string says why it cannot be made here.
 */
function freshExt4(): Ext4FileSystem | string {
  const ext4 = mountExt4({ prefix: 'worker-sqlite-faults-ext4-' });
  if (typeof ext4 !== 'string') cleanups.push(() => ext4.remove());
  return ext4;
}

const HTTP_HEADERS = {
  'Content-Type': 'application/json',
  'A2A-Version': '1.0',
  'A2A-Extensions': TASK_REMINDERS_EXTENSION_URI,
};

interface Worker {
  readonly spawned: SpawnedWorker;
  readonly base: string;
  readonly grpcAddress: string;
  readonly connections: ReadonlyMap<Binding, AgentConnection>;
  /** Stops it: SIGTERM, and the exit code (or signal) once it exited. */
  stop(): Promise<number | string | null>;
}

async function startWorker(file: string): Promise<Worker> {
  // Turns far apart: the task stays WORKING, its loop parked after turn 1,
  // so nothing but the test's calls writes during a fault.
  const spawned = await spawnMain([
    '--store',
    `sqlite:${file}`,
    '--port',
    '0',
    '--grpc-port',
    '0',
    '--turns',
    '1000',
    '--turn-ms',
    '600000',
  ]);
  const { child } = spawned;
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exitOf(child);
  });
  const base = spawned.ready[1] ?? '';
  const connections = new Map<Binding, AgentConnection>();
  for (const binding of BINDINGS) {
    const connection = await connectToAgent(base, { binding });
    cleanups.push(() => connection.close());
    connections.set(binding, connection);
  }
  return {
    spawned,
    base,
    grpcAddress: spawned.ready[2] ?? '',
    connections,
    async stop() {
      child.kill('SIGTERM');
      const code = await exitOf(child);
      return code ?? child.signalCode;
    },
  };
}

function alive(worker: Worker): boolean {
  return worker.spawned.child.exitCode === null && worker.spawned.child.signalCode === null;
}

async function jsonRpc(
  worker: Worker,
  method: string,
  params: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${worker.base}/a2a/jsonrpc`, {
    method: 'POST',
    headers: HTTP_HEADERS,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return {
    status: response.status,
    body: (await response.json()) as Record<string, unknown>,
  };
}

/** A new task through SendMessage, once its first turn has run (its loop then waits). */
async function createTask(worker: Worker): Promise<string> {
  const sent = await jsonRpc(worker, 'SendMessage', {
    message: { messageId: `m-${Date.now()}`, role: 'ROLE_USER', parts: [{ text: 'a task' }] },
    configuration: { returnImmediately: true },
  });
  const taskId = ((sent.body.result as { task?: { id?: string } } | undefined)?.task?.id ??
    '') as string;
  expect(taskId, JSON.stringify(sent.body)).not.toBe('');
  await vi.waitFor(
    async () => {
      const text = (await getTask(worker, taskId)).text;
      if (!/^turn 1\//.test(text)) throw new Error(`turn 1 not taken yet: "${text}"`);
    },
    { timeout: 60_000, interval: 50 },
  );
  return taskId;
}

async function getTask(worker: Worker, taskId: string): Promise<{ state: string; text: string }> {
  const answer = await jsonRpc(worker, 'GetTask', { id: taskId });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  const task = answer.body.result as {
    status: { state: string; message?: { parts: Array<{ text?: string }> } };
  };
  return { state: task.status.state, text: task.status.message?.parts[0]?.text ?? '' };
}

/** What one inject got: acknowledged, or the error it failed with as the caller sees it. */
type Answer =
  | { readonly binding: Binding; readonly id: string; readonly acked: true }
  | {
      readonly binding: Binding;
      readonly id: string;
      readonly acked: false;
      /** ReminderError code (clients) or the code the wire's error details name. */
      readonly code: string;
      /** HTTP bindings: status and Retry-After; gRPC: the status code's name. */
      readonly wire: string;
    };

/** Injects through the binding's reminder client (the error as a ReminderError). */
async function injectWithClient(
  worker: Worker,
  binding: Binding,
  taskId: string,
  id: string,
): Promise<Answer> {
  const client = worker.connections.get(binding)?.reminders;
  if (client === undefined) throw new Error(`no ${binding} client`);
  try {
    const answer = await client.injectTaskReminder({
      taskId,
      reminder: { id, body: `body ${id}` },
    });
    expect(answer.record?.reminder?.id).toBe(id);
    return { binding, id, acked: true };
  } catch (error) {
    if (!(error instanceof ReminderError)) throw error;
    return { binding, id, acked: false, code: error.code, wire: '(client)' };
  }
}

/** Injects with a raw request, so the answer's HTTP status, headers and gRPC status are seen as sent. */
async function injectRaw(
  worker: Worker,
  binding: Binding,
  taskId: string,
  id: string,
): Promise<Answer> {
  const reminder = { id, body: `body ${id}` };
  if (binding === 'grpc') {
    const status = await grpcInject(worker.grpcAddress, taskId, reminder);
    if (status === undefined) return { binding, id, acked: true };
    return {
      binding,
      id,
      acked: false,
      code: status.reason,
      wire: grpc.status[status.code] ?? String(status.code),
    };
  }
  const response =
    binding === 'jsonrpc'
      ? await fetch(`${worker.base}/a2a/jsonrpc`, {
          method: 'POST',
          headers: HTTP_HEADERS,
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'InjectTaskReminder',
            params: { taskId, reminder },
          }),
        })
      : await fetch(`${worker.base}/a2a/rest/tasks/${taskId}:injectReminder`, {
          method: 'POST',
          headers: HTTP_HEADERS,
          body: JSON.stringify({ reminder }),
        });
  const body = (await response.json()) as {
    result?: unknown;
    error?: { code?: number; status?: string; data?: unknown; details?: unknown };
  };
  const wire = `${response.status} Retry-After: ${response.headers.get('retry-after')}`;
  if (response.status === 200 && body.error === undefined) return { binding, id, acked: true };
  const details = (binding === 'jsonrpc' ? body.error?.data : body.error?.details) as
    | Array<{ reason?: string }>
    | undefined;
  const reason = details?.find((d) => d.reason !== undefined)?.reason ?? 'none';
  // JSON-RPC: the error code too, which must be -32000 for UNAVAILABLE.
  const code = binding === 'jsonrpc' ? `${reason} ${body.error?.code}` : reason;
  return { binding, id, acked: false, code, wire };
}

/**
 * A raw gRPC InjectTaskReminder with grpc-js; undefined when it succeeded,
 * else its status code and the ErrorInfo reason of its
 * `grpc-status-details-bin` trailer.
 */
function grpcInject(
  address: string,
  taskId: string,
  reminder: { id: string; body: string },
): Promise<{ code: number; reason: string } | undefined> {
  const path = `/${TaskReminderService.typeName}/${TaskReminderService.method.injectTaskReminder.name}`;
  const request = create(InjectTaskReminderRequestSchema, { taskId, reminder });
  const bytes = Buffer.from(toBinary(InjectTaskReminderRequestSchema, request));
  const metadata = new grpc.Metadata();
  metadata.set('a2a-version', '1.0');
  metadata.set('a2a-extensions', TASK_REMINDERS_EXTENSION_URI);
  const client = new grpc.Client(address, grpc.credentials.createInsecure());
  const identity = (b: Buffer) => b;
  return new Promise((resolve) => {
    client.makeUnaryRequest(path, identity, identity, bytes, metadata, (error) => {
      client.close();
      if (error === null) return resolve(undefined);
      const [bin] = error.metadata.get('grpc-status-details-bin');
      const details = bin instanceof Buffer ? fromBinary(StatusSchema, bin).details : [];
      const info = details
        .map((any) => anyUnpack(any, reminderTypeRegistry))
        .find((d) => d?.$typeName === ErrorInfoSchema.typeName) as ErrorInfo | undefined;
      resolve({ code: error.code, reason: info?.reason ?? 'none' });
    });
  });
}

/** Every reminder id the task lists, over one binding, following every page. */
async function listed(worker: Worker, binding: Binding, taskId: string): Promise<string[]> {
  const client = worker.connections.get(binding)?.reminders;
  if (client === undefined) throw new Error(`no ${binding} client`);
  const ids: string[] = [];
  for await (const page of reminderPages(client, { taskId, pageSize: 100 })) {
    ids.push(...page.reminders.map((r) => r.reminder?.id ?? ''));
  }
  return ids;
}

/** What every inject during a fault must get, per binding. */
function unavailableAnswer(binding: Binding, id: string, raw: boolean): Answer {
  if (!raw) return { binding, id, acked: false, code: 'UNAVAILABLE', wire: '(client)' };
  if (binding === 'grpc')
    return { binding, id, acked: false, code: 'UNAVAILABLE', wire: 'UNAVAILABLE' };
  return {
    binding,
    id,
    acked: false,
    code: binding === 'jsonrpc' ? 'UNAVAILABLE -32000' : 'UNAVAILABLE',
    wire: '503 Retry-After: 1',
  };
}

/**
 * Injects on every binding (raw, and through the clients unless `rawOnly`)
 * during a fault; each must be answered UNAVAILABLE. Returns the ids tried.
 */
async function injectDuringFault(
  worker: Worker,
  taskId: string,
  tag: string,
  rawOnly = false,
): Promise<string[]> {
  const tried: string[] = [];
  for (const binding of BINDINGS) {
    for (const raw of rawOnly ? [true] : [true, false]) {
      const id = `${tag}-${binding}-${raw ? 'raw' : 'client'}`;
      tried.push(id);
      const answer = await (raw ? injectRaw : injectWithClient)(worker, binding, taskId, id);
      expect(answer).toEqual(unavailableAnswer(binding, id, raw));
    }
  }
  return tried;
}

/** Injects once per binding through the clients; every one must be acknowledged. */
async function injectAcked(worker: Worker, taskId: string, tag: string): Promise<string[]> {
  const ids: string[] = [];
  for (const binding of BINDINGS) {
    const id = `${tag}-${binding}`;
    expect(await injectWithClient(worker, binding, taskId, id)).toEqual({
      binding,
      id,
      acked: true,
    });
    ids.push(id);
  }
  return ids;
}

/** Every acknowledged id is listed on every binding, and nothing but ids that were sent. */
async function expectAllListed(
  worker: Worker,
  taskId: string,
  acknowledged: readonly string[],
  sent: readonly string[],
): Promise<void> {
  for (const binding of BINDINGS) {
    const ids = await listed(worker, binding, taskId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(acknowledged.filter((id) => !ids.includes(id))).toEqual([]);
    expect(ids.filter((id) => !sent.includes(id))).toEqual([]);
  }
}

describe.skipIf(!CAN_MOUNT)('worker on SQLite under real faults (R69)', () => {
  it(
    'answers UNAVAILABLE on every binding while another process holds the write lock past the busy timeout',
    async () => {
      const dir = freshTmpfs('8m');
      const file = join(dir, 'worker.sqlite');
      const worker = await startWorker(file);
      const taskId = await createTask(worker);
      const acknowledged = await injectAcked(worker, taskId, 'before');
      const sent = [...acknowledged];

      const lock = await lockFromAnotherProcess(file);
      try {
        // Each inject waits out the worker's busy timeout (10 s, no flag to
        // shorten it) and fails: raw requests only, so the test stays three
        // waits long; the clients' mapping is checked in the other cases.
        sent.push(...(await injectDuringFault(worker, taskId, 'locked', true)));
        expect(alive(worker)).toBe(true);
        // The HTTP bindings log the driver's message: SQLITE_BUSY's.
        expect(worker.spawned.errorLines.join('\n')).toContain('unavailable: database is locked');
        // Reads go on (WAL): GetTask and the list answer while the lock is held.
        expect((await getTask(worker, taskId)).state).toBe('TASK_STATE_WORKING');
        await expectAllListed(worker, taskId, acknowledged, sent);
      } finally {
        await lock.release();
      }

      const after = await injectAcked(worker, taskId, 'after');
      acknowledged.push(...after);
      sent.push(...after);
      // The ids refused during the fault take now (R13: a resend is safe).
      for (const binding of BINDINGS) {
        const id = `locked-${binding}-raw`;
        expect(await injectWithClient(worker, binding, taskId, id)).toEqual({
          binding,
          id,
          acked: true,
        });
        acknowledged.push(id);
      }
      await expectAllListed(worker, taskId, acknowledged, sent);
      expect(alive(worker)).toBe(true);
    },
    LOCK_TEST_TIMEOUT_MS,
  );

  it('answers UNAVAILABLE on every binding while the file system is full, and serves again once space is freed', async () => {
    const dir = freshTmpfs('8m');
    const worker = await startWorker(join(dir, 'worker.sqlite'));
    const taskId = await createTask(worker);
    const acknowledged = await injectAcked(worker, taskId, 'before');
    const sent = [...acknowledged];

    const filler = fillFileSystem(dir).path;
    try {
      sent.push(...(await injectDuringFault(worker, taskId, 'full')));
      // A second round: the worker keeps answering the same way.
      sent.push(...(await injectDuringFault(worker, taskId, 'full-again')));
      expect(alive(worker)).toBe(true);
      expect((await getTask(worker, taskId)).state).toBe('TASK_STATE_WORKING');
      await expectAllListed(worker, taskId, acknowledged, sent);
    } finally {
      rmSync(filler);
    }

    const after = await injectAcked(worker, taskId, 'after');
    acknowledged.push(...after);
    sent.push(...after);
    await expectAllListed(worker, taskId, acknowledged, sent);
    expect(alive(worker)).toBe(true);
    expect(worker.spawned.errorLines.join('\n')).toContain('unavailable: database or disk is full');
  });

  it('answers UNAVAILABLE on every binding once the kernel remounts the file system read-only (ext4 errors=remount-ro); after fsck and a restart every acknowledged reminder is listed', async ({
    skip,
  }) => {
    // A tmpfs cannot be remounted read-only while the worker holds the file
    // open for writing (the kernel answers EBUSY): an ext4 error is how a
    // file system turns read-only under a running process.
    const ext4 = freshExt4();
    if (typeof ext4 === 'string') return skip(ext4);
    const file = join(ext4.dir, 'worker.sqlite');
    const worker = await startWorker(file);
    const taskId = await createTask(worker);
    const acknowledged = await injectAcked(worker, taskId, 'before');
    const sent = [...acknowledged];
    // The worker commits with synchronous=NORMAL: a commit reaches the disk
    // at the kernel's writeback, so one acknowledged just before the error
    // would be lost with the page cache. Written back first, as it would be
    // a few seconds after the commit.
    run('sync', ['-f', file]);

    ext4.raiseError('worker sqlite-faults test');
    expect(ext4.writable()).toBe('EROFS');
    sent.push(...(await injectDuringFault(worker, taskId, 'read-only')));
    expect(alive(worker)).toBe(true);
    // SQLITE_IOERR_WRITE: the write to the WAL failed with EROFS.
    expect(worker.spawned.errorLines.join('\n')).toContain('unavailable: disk I/O error');
    expect((await getTask(worker, taskId)).state).toBe('TASK_STATE_WORKING');
    await expectAllListed(worker, taskId, acknowledged, sent);

    // Recovery is an operator's: the worker stopped, the file system checked and mounted again.
    // It shuts down cleanly on SIGTERM with its file system read-only.
    expect(await worker.stop()).toBe(0);
    const fsck = ext4.unmountAndCheck();
    expect(fsck.status, fsck.stdout).toBeLessThanOrEqual(1);
    ext4.mount();
    expect(ext4.writable()).toBe('writable');
    const restarted = await startWorker(file);
    // The task it ran is ended FAILED at start (SQLite: one worker per file); its records stay listed.
    expect(restarted.spawned.lines).toContain(
      'RECOVERED 1 task(s) left running by a previous run, ended FAILED',
    );
    await expectAllListed(restarted, taskId, acknowledged, sent);
    const next = await createTask(restarted);
    await injectAcked(restarted, next, 'after');
  });
});
