import type { AgentCard } from '@a2a-js/sdk';
import { TaskState } from '@a2a-js/sdk';
import type { Binding } from '@a2a-reminders/core';
import { BINDINGS, PROTOCOL_BINDING_OF, TASK_REMINDERS_EXTENSION_URI } from '@a2a-reminders/core';
import { ReminderState } from '@a2a-reminders/proto';
import { saveTask } from '@a2a-reminders/test-support';
import * as grpc from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentConnectionError } from './agent-connection-error.js';
import type { A2AConnection, AgentConnection } from './connect.js';
import { connectToA2AAgent, connectToAgent } from './connect.js';
import type { TestAgent, TestAgentOptions } from './testing/test-agent.js';
import { startTestAgent } from './testing/test-agent.js';

const opened: Array<TestAgent | A2AConnection> = [];
afterEach(async () => {
  for (const item of opened.splice(0).reverse()) await item.close();
});

async function agent(options?: TestAgentOptions): Promise<TestAgent> {
  const started = await startTestAgent(options);
  opened.push(started);
  return started;
}

async function connect(...args: Parameters<typeof connectToAgent>): Promise<AgentConnection> {
  const connection = await connectToAgent(...args);
  opened.push(connection);
  return connection;
}

/** The calls the agent saw, cards aside. */
const served = (agent: TestAgent) => agent.seen.filter((c) => c.binding !== 'card');

const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (e: unknown) => e,
  );

const inject = (connection: AgentConnection, taskId: string, id: string, tenant?: string) =>
  connection.reminders.injectTaskReminder({
    ...(tenant === undefined ? {} : { tenant }),
    taskId,
    reminder: { id, body: 'Upstream PR merged; rebase.' },
  });

describe.each(BINDINGS)('connectToAgent over %s', (binding: Binding) => {
  it('puts the SDK client and the reminder client on the card interface, with the headers', async () => {
    const served = await agent();
    await saveTask(served.taskStore, {
      id: 'task-1',
      state: TaskState.TASK_STATE_WORKING,
      user: 'alice',
    });
    const connection = await connect(served.url, {
      binding,
      headers: { authorization: 'Bearer alice' },
    });
    const iface = served.card.supportedInterfaces.find(
      (i) => i.protocolBinding === PROTOCOL_BINDING_OF[binding],
    );
    expect(connection.endpoint).toBe(iface?.url);
    expect(connection.card.name).toBe(served.card.name);
    expect(connection.client.transport.protocolName).toBe(PROTOCOL_BINDING_OF[binding]);

    const task = await connection.client.getTask(
      { tenant: '', id: 'task-1' },
      connection.requestOptions(),
    );
    expect(task.id).toBe('task-1');
    const injected = await inject(connection, 'task-1', 'r1');
    expect(injected.record?.state).toBe(ReminderState.PENDING);

    // Both rpcs went over the binding asked for, as alice, the extension activated.
    const calls = served.seen.filter((c) => c.binding !== 'card');
    expect(calls.map((c) => c.binding)).toEqual([binding, binding]);
    for (const call of calls) {
      expect(call.headers.authorization).toBe('Bearer alice');
      expect(call.headers['a2a-extensions']).toContain(TASK_REMINDERS_EXTENSION_URI);
    }
    // The task is alice's: without her header neither client finds it.
    const anonymous = await connect(served.url, { binding });
    expect(
      await failureOf(
        anonymous.client.getTask({ tenant: '', id: 'task-1' }, anonymous.requestOptions()),
      ),
    ).toBeInstanceOf(Error);
    expect(await failureOf(inject(anonymous, 'task-1', 'r2'))).toMatchObject({
      code: 'TASK_NOT_FOUND',
    });
  });

  it("keeps the caller's own extensions activated on SDK calls (W6)", async () => {
    const served = await agent();
    await saveTask(served.taskStore, { id: 'task-1', state: TaskState.TASK_STATE_WORKING });
    const connection = await connect(served.url, {
      binding,
      headers: { 'A2A-Extensions': 'urn:example:other' },
    });
    await connection.client.getTask({ tenant: '', id: 'task-1' }, connection.requestOptions());
    const call = served.seen.find((c) => c.binding === binding);
    expect(call?.headers['a2a-extensions']?.split(',').map((e) => e.trim())).toEqual([
      'urn:example:other',
      TASK_REMINDERS_EXTENSION_URI,
    ]);
  });

  it('uses the interface the SDK picks when the card lists several, for both clients', async () => {
    // The SDK's ClientFactory keeps the last 1.0 entry per binding; a decoy
    // listed first, on a port nothing serves, must not get the reminder calls.
    const decoy = (url: string) =>
      url.startsWith('http') ? 'http://127.0.0.1:1/a2a' : '127.0.0.1:1';
    const served = await agent({
      interfaces: (real) => [...real.map((i) => ({ ...i, url: decoy(i.url) })), ...real],
    });
    await saveTask(served.taskStore, { id: 'task-1', state: TaskState.TASK_STATE_WORKING });
    const connection = await connect(served.url, { binding });
    expect(connection.endpoint).not.toContain(':1/');
    await connection.client.getTask({ tenant: '', id: 'task-1' }, connection.requestOptions());
    expect((await inject(connection, 'task-1', 'r1')).record?.state).toBe(ReminderState.PENDING);
  });

  it("fills the interface's tenant into reminder requests, as the SDK does for its own", async () => {
    const served = await agent({
      interfaces: (real) => real.map((i) => ({ ...i, tenant: 'acme' })),
    });
    await saveTask(served.taskStore, {
      id: 'task-1',
      state: TaskState.TASK_STATE_WORKING,
      tenant: 'acme',
    });
    const connection = await connect(served.url, { binding });
    await connection.client.getTask({ tenant: '', id: 'task-1' }, connection.requestOptions());
    expect((await inject(connection, 'task-1', 'r1')).record?.state).toBe(ReminderState.PENDING);
    // A tenant the request names wins, as with the SDK's decorator.
    expect(await failureOf(inject(connection, 'task-1', 'r2', 'other'))).toMatchObject({
      code: 'TASK_NOT_FOUND',
    });
  });

  it('takes the card itself instead of its URL', async () => {
    const served = await agent();
    await saveTask(served.taskStore, { id: 'task-1', state: TaskState.TASK_STATE_WORKING });
    const connection = await connect(served.card, { binding });
    expect((await inject(connection, 'task-1', 'r1')).record?.state).toBe(ReminderState.PENDING);
    expect(served.seen.filter((c) => c.binding === 'card')).toEqual([]);
  });

  it('refuses a card without the binding, or without the extension, naming both', async () => {
    const others = await agent({
      interfaces: (real) => real.filter((i) => i.protocolBinding !== PROTOCOL_BINDING_OF[binding]),
    });
    const missing = await failureOf(connectToAgent(others.url, { binding }));
    expect(missing).toBeInstanceOf(AgentConnectionError);
    expect((missing as Error).message).toBe(
      `the agent card at ${others.url}/.well-known/agent-card.json lists no ${PROTOCOL_BINDING_OF[binding]} 1.0 interface`,
    );
    const plain = await agent({ withoutExtension: true });
    const unextended = await failureOf(connectToAgent(plain.card, { binding }));
    expect((unextended as Error).message).toBe(
      `the agent card of ${plain.card.name} does not advertise ${TASK_REMINDERS_EXTENSION_URI}`,
    );
  });

  it('connectToA2AAgent reaches an agent without the extension with the SDK client alone, activating nothing', async () => {
    const plain = await agent({ withoutExtension: true });
    await saveTask(plain.taskStore, {
      id: 'task-1',
      state: TaskState.TASK_STATE_WORKING,
      user: 'alice',
    });
    const connection = await connectToA2AAgent(plain.url, {
      binding,
      headers: { authorization: 'Bearer alice' },
    });
    opened.push(connection);
    expect(connection.servesReminders).toBe(false);
    expect(connection).not.toHaveProperty('reminders');
    const task = await connection.client.getTask(
      { tenant: '', id: 'task-1' },
      connection.requestOptions(),
    );
    expect(task.id).toBe('task-1');
    const call = served(plain).find((c) => c.binding === binding);
    expect(call?.headers.authorization).toBe('Bearer alice');
    expect(call?.headers['a2a-extensions'] ?? '').not.toContain(TASK_REMINDERS_EXTENSION_URI);
    // Where the extension is served, it says so and activates it as connectToAgent does.
    const extended = await connectToA2AAgent((await agent()).card, { binding });
    opened.push(extended);
    expect(extended.servesReminders).toBe(true);
  });

  it('refuses, naming the card, a JSON card without extensions or interfaces (an A2A 0.3 card)', async () => {
    const served = await agent();
    const { capabilities: _capabilities, ...noCapabilities } = served.card;
    const stock = { ...noCapabilities, capabilities: { streaming: true } } as unknown as AgentCard;
    expect((await failureOf(connectToAgent(stock, { binding }))) as Error).toMatchObject({
      name: 'AgentConnectionError',
      message: `the agent card of ${served.card.name} does not advertise ${TASK_REMINDERS_EXTENSION_URI}`,
    });
    const { supportedInterfaces: _interfaces, ...old } = served.card;
    const v03 = { ...old, url: 'http://127.0.0.1:1/', preferredTransport: 'JSONRPC' };
    expect(
      (await failureOf(connectToAgent(v03 as unknown as AgentCard, { binding }))) as Error,
    ).toMatchObject({
      name: 'AgentConnectionError',
      message: `the agent card of ${served.card.name} lists no ${PROTOCOL_BINDING_OF[binding]} 1.0 interface`,
    });
  });
});

describe('AgentConnection.close', () => {
  it("shuts the SDK client's gRPC channel, which the SDK itself never closes", async () => {
    const served = await agent();
    const connection = await connectToAgent(served.url, { binding: 'grpc' });
    const channel = (
      connection.client.transport as unknown as { grpcClient: grpc.Client }
    ).grpcClient.getChannel();
    expect(channel.getConnectivityState(false)).not.toBe(grpc.connectivityState.SHUTDOWN);
    connection.close();
    expect(channel.getConnectivityState(false)).toBe(grpc.connectivityState.SHUTDOWN);
  });
});
