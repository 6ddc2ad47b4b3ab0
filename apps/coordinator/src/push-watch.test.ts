import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { StreamResponse } from '@a2a-js/sdk';
import { TaskState } from '@a2a-js/sdk';
import type { AgentConnection, Binding } from '@a2a-reminders/client';
import { BINDINGS, connectToAgent, delegationRequest } from '@a2a-reminders/client';
import { reminderEventsOf } from '@a2a-reminders/core';
import { ReminderState } from '@a2a-reminders/proto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { describeReminderEvent } from './format.js';
import { PushReceiver } from './push-receiver.js';
import { closedPort } from './testing/closed-port.js';
import { until } from './testing/until.js';
import type { WorkerProcess } from './worker-process.js';
import { spawnWorker, stopWorker } from './worker-process.js';

// Issue 13, push notifications: `watch --push` learns every reminder's fate
// from the worker's push notifications, with no stream open, exactly as the
// task's own stream tells them; a webhook that is down loses its
// notifications and nothing else (spec §16: best-effort, List is the record).

const WORKER_MAIN = fileURLToPath(new URL('../../worker/dist/main.js', import.meta.url));
const COORDINATOR_MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));

let worker: WorkerProcess;
let cardUrl: string;
const workerLog: string[] = [];

beforeAll(async () => {
  for (const file of [WORKER_MAIN, COORDINATOR_MAIN]) {
    if (!existsSync(file)) throw new Error(`${file} is missing: build the apps first`);
  }
  // No turn limit: each test ends its task itself, once its script has run.
  worker = await spawnWorker(
    WORKER_MAIN,
    ['--port', '0', '--grpc-port', '0', '--store', 'memory', '--turns', '0', '--turn-ms', '500'],
    { onStderr: (line) => workerLog.push(line) },
  );
  cardUrl = `${worker.httpBaseUrl}/.well-known/agent-card.json`;
});

/** Watch processes a failed test left running. */
const running = new Set<ChildProcess>();

afterEach(() => {
  for (const child of running) if (child.exitCode === null) child.kill('SIGKILL');
  running.clear();
});

afterAll(async () => {
  if (worker) await stopWorker(worker.child);
});

/** A running coordinator command: its stdout lines as they come, and its exit. */
function coordinator(args: readonly string[]) {
  const child: ChildProcess = spawn(process.execPath, [COORDINATOR_MAIN, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const errors: string[] = [];
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (l) =>
    lines.push(l),
  );
  createInterface({ input: child.stderr as NodeJS.ReadableStream }).on('line', (l) =>
    errors.push(l),
  );
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { child, lines, errors, exited };
}

/** A task's own stream, read in the background: every reminder event, as `watch` prints it. */
function followStream(items: AsyncIterable<StreamResponse>) {
  const events: string[] = [];
  let opened = false;
  const done = (async () => {
    for await (const item of items) {
      opened = true;
      for (const event of reminderEventsOf(item)) {
        const { tag, text } = describeReminderEvent(event);
        events.push(`${tag} ${text}`);
      }
    }
  })();
  return { events, done, opened: () => opened };
}

/** The reminder events of a `watch` timeline, as `tag text`. */
function printedEvents(lines: readonly string[]): string[] {
  const tags = new Set(['reached', 'displaced', 'expired', 'cancelled', 'dropped']);
  return lines.flatMap((line) => {
    const m = /^\[[^\]]+\] (\S+)\s+(.*)$/.exec(line);
    return m?.[1] !== undefined && tags.has(m[1]) ? [`${m[1]} ${m[2]}`] : [];
  });
}

async function startTask(agent: AgentConnection, text: string): Promise<string> {
  const sent = await agent.client.sendMessage(delegationRequest(text), agent.requestOptions());
  if (!('status' in sent)) throw new Error('the worker answered with a message');
  return sent.id;
}

/**
 * Starts a task, runs `watch --push` on it over `binding` (no stream), plays a
 * script of reminders, ends the task, and checks what the watch printed
 * against the task's own stream and against List.
 */
async function pushScript(cardUrl: string, binding: Binding): Promise<void> {
  const agent = await connectToAgent(cardUrl, { binding });
  try {
    const taskId = await startTask(agent, `Push watch over ${binding}`);
    const stream = followStream(
      agent.client.resubscribeTask({ tenant: '', id: taskId }, agent.requestOptions()),
    );
    await until(stream.opened);
    const watch = coordinator([
      ...['watch', '--push', '0', '--task-id', taskId],
      ...['--binding', binding, '--url', cardUrl],
    ]);
    running.add(watch.child);
    await until(() => watch.lines.some((l) => / push +task \S+ notifies http:/.test(l)));

    const inject = (id: string, more: { dedupeKey?: string; ttlTurns?: number } = {}) =>
      agent.reminders.injectTaskReminder({
        taskId,
        reminder: { id, body: `Reminder ${id}.`, source: 'push-test', ttlTurns: 20, ...more },
      });
    await inject('note-50', { dedupeKey: 'note' });
    await inject('note-75', { dedupeKey: 'note' }); // displaces note-50
    await inject('flaky');
    await agent.reminders.cancelTaskReminder({ taskId, reminderId: 'flaky' });
    await inject('lint-red', { ttlTurns: 1 });
    // lint-red runs its course on the next two turns; note-75 is still live when the task ends.
    await until(() => stream.events.some((e) => e.startsWith('expired lint-red ')));
    await agent.client.cancelTask(
      { tenant: '', id: taskId, metadata: undefined },
      agent.requestOptions(),
    );

    expect(await watch.exited).toBe(0);
    await stream.done;
    expect(watch.errors).toEqual([]);
    const pushed = printedEvents(watch.lines);
    expect(pushed).toEqual(stream.events);
    expect(pushed.filter((e) => e.startsWith('displaced note-50 '))).toHaveLength(1);
    // A turn boundary may fall between the inject and the cancel; either way, one fate.
    expect(pushed.filter((e) => /^cancelled flaky cancelled after \d+ turn/.test(e))).toHaveLength(
      1,
    );
    expect(pushed.at(-1)).toMatch(/^expired note-75 expired after turn \d+: .*the task ended$/);
    expect(watch.lines.some((l) => / state +CANCELED/.test(l))).toBe(true);

    // The same fates are listed; the registration is gone.
    const { reminders } = await agent.reminders.listTaskReminders({ taskId });
    expect(reminders.map((r) => [r.reminder?.id, r.state])).toEqual([
      ['note-50', ReminderState.DISPLACED],
      ['note-75', ReminderState.EXPIRED],
      ['flaky', ReminderState.CANCELLED],
      ['lint-red', ReminderState.EXPIRED],
    ]);
    const configs = await agent.client.listTaskPushNotificationConfig(
      { tenant: '', taskId, pageSize: 0, pageToken: '' },
      agent.requestOptions(),
    );
    expect(configs.configs).toEqual([]);
  } finally {
    agent.close();
  }
}

describe('watch --push', () => {
  it.each<Binding>(BINDINGS)(
    'over %s: learns every fate by push, once each and in the order of the task stream, task-end fates included',
    (binding) => pushScript(cardUrl, binding),
  );

  it('refuses a notification without its token, and says so', async () => {
    const agent = await connectToAgent(cardUrl, { binding: 'jsonrpc' });
    try {
      const taskId = await startTask(agent, 'Push watch with a forged notification');
      const watch = coordinator(['watch', '--push', '0', '--task-id', taskId, '--url', cardUrl]);
      running.add(watch.child);
      await until(() => watch.lines.some((l) => / notifies http:/.test(l)));
      const url = / notifies (http:\S+) /.exec(
        watch.lines.find((l) => / notifies /.test(l)) ?? '',
      )?.[1];
      const forged = await fetch(url ?? '', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-a2a-notification-token': 'guess' },
        body: JSON.stringify({
          statusUpdate: { taskId, status: { state: 'TASK_STATE_COMPLETED' } },
        }),
      });
      expect(forged.status).toBe(401);
      await until(() =>
        watch.lines.some((l) => / refused +a notification without this receiver/.test(l)),
      );
      // The forged end did not end the watch; the real one does.
      await agent.client.cancelTask(
        { tenant: '', id: taskId, metadata: undefined },
        agent.requestOptions(),
      );
      expect(await watch.exited).toBe(0);
      expect(watch.lines.some((l) => / state +CANCELED/.test(l))).toBe(true);
    } finally {
      agent.close();
    }
  });
});

describe('a webhook that is down', () => {
  it("loses its own notifications and nothing else: the task's other webhook gets every fate, the worker serves on", async () => {
    const agent = await connectToAgent(cardUrl, { binding: 'rest' });
    const live = await PushReceiver.start({ port: 0 });
    try {
      const taskId = await startTask(agent, 'Push to a webhook that is down');
      const down = `http://127.0.0.1:${await closedPort()}/a2a-push`;
      for (const [id, url, token] of [
        ['down', down, 't'],
        ['live', live.url, live.token],
      ] as const) {
        await agent.client.createTaskPushNotificationConfig(
          { tenant: '', taskId, id, url, token, authentication: undefined },
          agent.requestOptions(),
        );
      }
      const pushed: string[] = [];
      const received = (async () => {
        for await (const item of live.items()) {
          for (const event of reminderEventsOf(item)) {
            pushed.push(`${event.event.case} ${event.reminderId}`);
          }
        }
      })();
      const failedBefore = workerLog.filter((l) => l.includes(down)).length;
      const inject = (id: string) =>
        agent.reminders.injectTaskReminder({
          taskId,
          reminder: { id, body: 'Note.', dedupeKey: 'k' },
        });
      await inject('a');
      await inject('b'); // displaces a
      await agent.client.cancelTask(
        { tenant: '', id: taskId, metadata: undefined },
        agent.requestOptions(),
      );
      await received;

      // The SDK's sender tried the down webhook, logged the failure, and went on.
      await until(() => workerLog.filter((l) => l.includes(down)).length > failedBefore);
      const { reminders } = await agent.reminders.listTaskReminders({ taskId });
      expect(reminders.map((r) => [r.reminder?.id, r.state])[0]).toEqual([
        'a',
        ReminderState.DISPLACED,
      ]);
      expect([ReminderState.DROPPED, ReminderState.EXPIRED]).toContain(reminders[1]?.state);
      // The live webhook got each of those fates (copies aside), in order.
      const final = reminders[1]?.state === ReminderState.DROPPED ? 'dropped' : 'expired';
      expect([...new Set(pushed)].filter((e) => !e.startsWith('emitted'))).toEqual([
        'displaced a',
        `${final} b`,
      ]);
      const task = await agent.client.getTask({ tenant: '', id: taskId }, agent.requestOptions());
      expect(task.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    } finally {
      await live.close();
      agent.close();
    }
  });
});

describe('push configs in the worker database', () => {
  // The same script on a worker whose tasks and push configs live in SQLite
  // (the SDK's DatabasePushNotificationStore, migrated at start).
  let sqliteWorker: WorkerProcess | undefined;
  const dir = mkdtempSync(join(tmpdir(), 'push-watch-'));

  afterAll(async () => {
    if (sqliteWorker) await stopWorker(sqliteWorker.child);
    rmSync(dir, { recursive: true, force: true });
  });

  it('over jsonrpc, with the worker on SQLite', async () => {
    sqliteWorker = await spawnWorker(
      WORKER_MAIN,
      [
        ...['--port', '0', '--grpc-port', '0', '--store', `sqlite:${join(dir, 'worker.sqlite')}`],
        ...['--turns', '0', '--turn-ms', '500'],
      ],
      { onStderr: (line) => workerLog.push(line) },
    );
    await pushScript(`${sqliteWorker.httpBaseUrl}/.well-known/agent-card.json`, 'jsonrpc');
  });
});
