// Micro-benchmark (not a test): inject and turn-boundary cost for 1, 100 and
// 10 000 live reminders on one task, side by side. Run: npm run bench -w @a2a-reminders/core
import { SendMessageRequest, Task } from '@a2a-js/sdk';
import {
  DefaultExecutionEventBusManager,
  InMemoryTaskStore,
  RequestContext,
  ServerCallContext,
} from '@a2a-js/sdk/server';
import {
  InjectTaskReminderRequestSchema,
  ListTaskRemindersRequestSchema,
} from '@a2a-reminders/proto';
import { create } from '@bufbuild/protobuf';
import {
  createReminderService,
  MAX_LIST_PAGE_SIZE,
  TASK_REMINDERS_EXTENSION_URI,
} from '../index.js';

const SIZES = [1, 100, 10_000];

interface Row {
  live: number;
  fill: number;
  inject: number;
  injectDisplace: number;
  firstTurn: number;
  turn: number;
  list: number;
}

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

async function perOp(iterations: number, op: (i: number) => Promise<unknown>): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < iterations; i += 1) await op(i);
  return ((performance.now() - start) * 1000) / iterations;
}

async function measure(live: number): Promise<Row> {
  const taskStore = new InMemoryTaskStore();
  const eventBusManager = new DefaultExecutionEventBusManager();
  const service = createReminderService({
    taskStore,
    eventBusManager,
    limits: { maxLiveRemindersPerTask: live + 10, maxTtlTurns: 1_000_000 },
  });
  const ctx = new ServerCallContext({
    requestedExtensions: [TASK_REMINDERS_EXTENSION_URI],
    requestedVersion: '1.0',
  });
  const task = Task.fromJSON({
    id: 'task',
    contextId: 'c',
    status: { state: 'TASK_STATE_WORKING' },
  });
  await taskStore.save(task, ctx);
  const bus = eventBusManager.createOrGetByTaskId('task', ctx);
  let published = 0;
  bus.on('event', () => {
    published += 1;
  });
  const rc = new RequestContext(
    SendMessageRequest.fromJSON({
      message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x' }] },
    }),
    'task',
    'c',
    ctx,
    task,
  );
  const inject = (id: string, dedupeKey = '') =>
    service.injectTaskReminder(
      create(InjectTaskReminderRequestSchema, {
        taskId: 'task',
        reminder: { id, body: `reminder ${id}`, dedupeKey, ttlTurns: 1_000_000, source: 'bench' },
      }),
      ctx,
    );

  // Fill to live - 1, so that the measured injects run at `live` live reminders.
  const fillStart = performance.now();
  for (let i = 0; i < live - 1; i += 1) await inject(`fill-${i}`);
  const fill = performance.now() - fillStart;
  const iterations = 2000;
  gc();
  // Each injected reminder is cancelled again, so the count stays at `live`.
  const injectUs = await perOp(iterations, async (i) => {
    await inject(`x-${i}`);
    await service.cancelTaskReminder(
      {
        $typeName: 'a2a.reminders.v1.CancelTaskReminderRequest',
        tenant: '',
        taskId: 'task',
        reminderId: `x-${i}`,
      },
      ctx,
    );
  });
  gc();
  // A dedupe chain: each inject displaces its predecessor (one DISPLACED event each).
  await inject('d-start', 'chain');
  const displaceUs = await perOp(iterations, (i) => inject(`d-${i}`, 'chain'));
  gc();
  const firstTurnUs = await perOp(1, () => service.beginTurn(rc, bus));
  const turns = live >= 10_000 ? 50 : 500;
  gc();
  const turnUs = await perOp(turns, () => service.beginTurn(rc, bus));
  gc();
  const listUs = await perOp(live >= 10_000 ? 20 : 200, () =>
    service.listTaskReminders(
      create(ListTaskRemindersRequestSchema, { taskId: 'task', pageSize: MAX_LIST_PAGE_SIZE }),
      ctx,
    ),
  );
  if (published === 0) throw new Error('no events were published');
  return {
    live,
    fill,
    inject: injectUs / 2,
    injectDisplace: displaceUs,
    firstTurn: firstTurnUs,
    turn: turnUs,
    list: listUs,
  };
}

const fmt = (us: number) => (us >= 1000 ? `${(us / 1000).toFixed(2)} ms` : `${us.toFixed(1)} µs`);

const rows: Row[] = [];
for (const size of SIZES) rows.push(await measure(size));
console.log('task reminders, in-memory store, one task; per-operation wall time');
console.log(
  [
    'live',
    'inject (+cancel)/2',
    'inject displacing',
    'first turn (all EMITTED)',
    'turn boundary',
    'list',
  ]
    .map((h) => h.padStart(26))
    .join(''),
);
for (const r of rows) {
  console.log(
    [
      String(r.live),
      fmt(r.inject),
      fmt(r.injectDisplace),
      fmt(r.firstTurn),
      fmt(r.turn),
      fmt(r.list),
    ]
      .map((c) => c.padStart(26))
      .join(''),
  );
}
