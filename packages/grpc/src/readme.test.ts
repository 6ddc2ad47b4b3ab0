import { readFile } from 'node:fs/promises';
import type { AgentExecutor } from '@a2a-js/sdk/server';
import {
  DefaultExecutionEventBusManager,
  DefaultRequestHandler,
  InMemoryTaskStore,
  ServerCallContext,
  UnauthenticatedUser,
} from '@a2a-js/sdk/server';
import { A2AService, grpcService, UserBuilder } from '@a2a-js/sdk/server/grpc';
import type { ReminderErrorCode } from '@a2a-reminders/core';
import {
  createReminderService,
  ReminderError,
  reminderErrorCodes,
  withTaskReminders,
} from '@a2a-reminders/core';
import { reminderErrorWire } from '@a2a-reminders/core/protocol';
import { ErrorInfoSchema, ReminderState } from '@a2a-reminders/proto';
import { isMessage } from '@bufbuild/protobuf';
import * as grpc from '@grpc/grpc-js';
import { expect, it } from 'vitest';
import {
  createGrpcReminderClient,
  grpcReminderService,
  TaskReminderServiceDefinition,
} from './index.js';
import { callRaw } from './testing/raw-grpc-client.js';
import { TaskState, testAgentCard } from './testing/test-server.js';

const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
const self = await readFile(new URL(import.meta.url), 'utf8');

const codeBlocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');

/** `source:name` for every name a block imports. */
function importsOf(code: string): Set<string> {
  const names = new Set<string>();
  for (const m of code.matchAll(/import\s+(type\s+)?([\s\S]*?)\s+from\s+'([^']+)'/g)) {
    const clause = m[2] ?? '';
    const source = m[3] ?? '';
    const star = /\*\s+as\s+(\w+)/.exec(clause);
    if (star) names.add(`${source}:* as ${star[1]}`);
    for (const name of clause.replace(/[{}]/g, '').split(',')) {
      const n = name.replace(/^\s*type\s+/, '').trim();
      if (n && !n.startsWith('*')) names.add(`${source}:${n}`);
    }
  }
  return names;
}

/** The non-import lines of a block, trimmed. */
function bodyOf(code: string): string[] {
  const withoutImports = code.replace(/import\s+[\s\S]*?\s+from\s+'[^']+';\n/g, '');
  return withoutImports
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
}

it('README shows code that this test runs verbatim', () => {
  expect(codeBlocks).toHaveLength(2);
  const selfImports = importsOf(self);
  const selfLines = bodyOf(self).join('\n');
  for (const block of codeBlocks) {
    for (const name of importsOf(block)) {
      const local = name.replace(/^@a2a-reminders\/grpc:/, './index.js:');
      expect(selfImports, name).toContain(local);
    }
    expect(selfLines).toContain(bodyOf(block).join('\n'));
  }
});

it('README lists the status and ErrorInfo reasons every code really gets', () => {
  const rows = [...readme.matchAll(/^\|\s*`([A-Z_]+)`\s*\|\s*`([A-Z_]+)`\s*\|(.*)\|$/gm)];
  expect(rows.map((r) => r[1]).sort()).toEqual([...reminderErrorCodes].sort());
  for (const [, code, statusName, reasons] of rows) {
    const c = code as ReminderErrorCode;
    expect(grpc.status[statusName as keyof typeof grpc.status], c).toBe(reminderErrorWire[c].grpc);
    const infos = new ReminderError(c, 'm')
      .toStatusDetails()
      .filter((d) => isMessage(d, ErrorInfoSchema))
      .map((d) => `\`${d.reason}\``);
    const listed = [...(reasons ?? '').matchAll(/`([A-Z_]+)`/g)].map((m) => `\`${m[1]}\``);
    expect(listed, c).toEqual(infos);
  }
});

it('README snippet mounts next to the SDK on one grpc.Server, and its client reaches a task', async () => {
  const agentCard = testAgentCard();
  const executor: AgentExecutor = { execute: async () => {}, cancelTask: async () => {} };

  // #region server (README "Mount it next to the SDK")
  const taskStore = new InMemoryTaskStore();
  const eventBusManager = new DefaultExecutionEventBusManager();
  const reminders = createReminderService({ taskStore, eventBusManager });
  const requestHandler = new DefaultRequestHandler(
    withTaskReminders(agentCard, reminders),
    reminders.wrapTaskStore(taskStore),
    reminders.wrapExecutor(executor),
    eventBusManager,
  );
  const options = { requestHandler, userBuilder: UserBuilder.noAuthentication };

  const server = new grpc.Server();
  server.addService(A2AService, grpcService(options));
  server.addService(TaskReminderServiceDefinition, grpcReminderService({ ...options, reminders }));
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    );
  });
  // #endregion

  try {
    const taskId = 'readme-task';
    await taskStore.save(
      {
        id: taskId,
        contextId: 'readme-context',
        status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: undefined },
        artifacts: [],
        history: [],
        metadata: undefined,
      },
      new ServerCallContext({ user: new UnauthenticatedUser() }),
    );

    // #region client (README "Client")
    const client = createGrpcReminderClient({ baseUrl: `http://127.0.0.1:${port}` });
    const { record } = await client.injectTaskReminder({
      taskId,
      reminder: { id: 'budget-80', body: 'Budget is 80% spent.', ttlTurns: 2 },
    });
    const failure = await client
      .cancelTaskReminder({ taskId, reminderId: 'no-such-reminder' })
      .catch((error: unknown) => error);
    // failure instanceof ReminderError, failure.code === 'REMINDER_NOT_FOUND'
    client.close();
    // #endregion

    expect(record?.state).toBe(ReminderState.PENDING);
    expect(record?.reminder?.ttlTurns).toBe(2);
    expect(failure).toBeInstanceOf(ReminderError);
    expect((failure as ReminderError).code).toBe('REMINDER_NOT_FOUND');

    const getTask = A2AService.getTask;
    const found = await callRaw(
      `127.0.0.1:${port}`,
      getTask.path,
      getTask.requestSerialize({ tenant: '', id: taskId }),
      { 'a2a-version': '1.0' },
    );
    expect(getTask.responseDeserialize(found.response ?? Buffer.alloc(0)).id).toBe(taskId);
  } finally {
    server.forceShutdown();
  }
});
