// The store bench's server process (README, Stores): the JSON-RPC binding with
// the reminder extension, the SDK's in-memory task store, and the reminder
// store named by --store (memory, sqlite:<file>, postgres://…). Besides the
// rpcs it answers `POST /admin/turns?ms=&concurrency=`: a closed loop of turn
// boundaries on seeded tasks with nothing pending, in process (a turn boundary
// is the worker's own call, not an rpc), with the statements each one issued.
//
// With --replicated (the replica bench, README, Replicas; PostgreSQL only) it is
// one replica of several on one database: the SDK's DatabaseTaskStore on the
// same database, so every replica answers for every task (R55), and a
// PostgresChangeSignal, so events committed on another replica reach the
// streams of the tasks this one runs (R52). The SDK's task table must exist
// (the replica bench runs `a2a-db upgrade` once before starting replicas).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SendMessageRequest } from '@a2a-js/sdk';
import type { ExecutionEventBus } from '@a2a-js/sdk/server';
import { DefaultExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import { DatabaseTaskStore } from '@a2a-js/sdk/server/database';
import type { ReminderStore } from '@a2a-reminders/core';
import { InMemoryReminderStore } from '@a2a-reminders/core';
import {
  DatabaseReminderStore,
  openReminderDatabase,
  PostgresChangeSignal,
} from '@a2a-reminders/database';
import { type BenchReplicaWiring, createBenchStack } from './bench-stack.js';
import { numberFlag, stringFlag } from './cli-args.js';
import { closedLoop } from './closed-loop.js';
import { benchCaller, seedTasks } from './seed-tasks.js';
import { READY_PREFIX } from './wire.js';

const argv = process.argv.slice(2);
const storeUrl = stringFlag(argv, '--store') ?? 'memory';
const taskCount = numberFlag(argv, '--tasks', 1000);
const turnTaskCount = numberFlag(argv, '--turn-tasks', 200);
const replicated = argv.includes('--replicated');
if (replicated && !storeUrl.startsWith('postgres')) {
  throw new Error('--replicated needs a postgres:// --store');
}

/** Statements the store issued since the last reset, for the per-turn count. */
const counted = { all: 0, reminderTable: 0, taskTable: 0 };
let store: ReminderStore;
let replica: BenchReplicaWiring | undefined;
if (storeUrl === 'memory') {
  store = new InMemoryReminderStore();
} else {
  const db = await openReminderDatabase(storeUrl, {
    log: (event) => {
      if (event.level !== 'query') return;
      counted.all += 1;
      if (event.query.sql.includes('"a2a_reminders"')) counted.reminderTable += 1;
      if (event.query.sql.includes('a2a_reminder_tasks')) counted.taskTable += 1;
    },
  });
  store = new DatabaseReminderStore(db);
  if (replicated) {
    replica = {
      taskStore: new DatabaseTaskStore(db),
      changeSignal: await PostgresChangeSignal.start(storeUrl),
    };
  }
}

// The main bench's stack on this store; only its JSON-RPC path is loaded here.
const {
  app,
  listener,
  requestHandler,
  taskStore,
  reminders,
  seededTaskIds: seeded,
} = createBenchStack({}, store, replica);

// Turn boundaries run on tasks of their own, which no inject targets.
const turnTasks: Array<{ context: RequestContext; bus: ExecutionEventBus }> = [];
app.post('/admin/turns', async (req, res) => {
  const ms = Number(req.query.ms ?? 1000);
  const concurrency = Number(req.query.concurrency ?? 16);
  let next = 0;
  const before = { ...counted };
  const result = await closedLoop(
    async () => {
      const t = turnTasks[next++ % turnTasks.length];
      if (t === undefined) throw new Error('no turn tasks');
      const turn = await reminders.beginTurn(t.context, t.bus);
      if (turn.reminders.length !== 0) throw new Error('a turn task had reminders');
    },
    concurrency,
    ms,
  );
  const per = (n: number) => (result.requests === 0 ? 0 : n / result.requests);
  res.json({
    ...result,
    statementsPerTurn: per(counted.all - before.all),
    reminderTableStatementsPerTurn: per(counted.reminderTable - before.reminderTable),
    taskTableStatementsPerTurn: per(counted.taskTable - before.taskTable),
  });
});

const http: Server = await new Promise((resolve) => {
  const s = createServer(listener).listen(0, '127.0.0.1', () => resolve(s));
});
http.keepAliveTimeout = 60_000;
seeded.push(...(await seedTasks(requestHandler, taskCount)));
const context = benchCaller();
for (const taskId of await seedTasks(requestHandler, turnTaskCount)) {
  const task = await taskStore.load(taskId, context);
  if (task === undefined) throw new Error(`seeded task ${taskId} is missing`);
  const request = SendMessageRequest.fromJSON({
    message: { messageId: `turn-${taskId}`, role: 'ROLE_USER', parts: [{ text: 'turns' }] },
  });
  turnTasks.push({
    context: new RequestContext(request, taskId, task.contextId, context, task),
    bus: new DefaultExecutionEventBus(),
  });
}

const httpPort = (http.address() as AddressInfo).port;
console.log(
  `${READY_PREFIX}${JSON.stringify({ httpPort, grpcPort: 0, pid: process.pid, tasks: taskCount })}`,
);

function shutdown(): void {
  http.closeAllConnections();
  http.close();
  process.exit(0);
}
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
process.stdin.on('end', shutdown);
process.stdin.resume();
