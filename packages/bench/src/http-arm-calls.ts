import type { Agent } from 'node:http';
import type { ArmName } from './arms.js';
import { httpCall } from './http-call.js';
import { type InjectIds, injectReminderJson } from './inject-request.js';
import { pick } from './pick-task.js';
import { A2A_HEADERS, HTTP_PATHS } from './wire.js';

export interface HttpArmTarget {
  readonly agent: Agent;
  readonly port: number;
  readonly taskIds: readonly string[];
  readonly ids: InjectIds;
}

type HttpArm = Extract<
  ArmName,
  | 'express-noop'
  | 'jsonrpc-get'
  | 'jsonrpc-get-stock'
  | 'jsonrpc-inject'
  | 'rest-get'
  | 'rest-get-stock'
  | 'rest-inject'
>;

const JSON_HEADERS = { ...A2A_HEADERS, 'content-type': 'application/json' };

function fail(what: string, status: number, body: string): never {
  throw new Error(`${what}: HTTP ${status} ${body.slice(0, 200)}`);
}

/** Throws unless the JSON-RPC reply carries a result of which `check` approves. */
function expectJsonRpc(what: string, status: number, body: string, check: (r: Json) => boolean) {
  const reply = JSON.parse(body) as { result?: Json; error?: unknown };
  if (status !== 200 || reply.result === undefined || !check(reply.result)) {
    fail(what, status, body);
  }
}

function expectRest(what: string, status: number, body: string, check: (r: Json) => boolean) {
  if (status !== 200 || !check(JSON.parse(body) as Json)) fail(what, status, body);
}

interface Json {
  readonly status?: { readonly state?: string };
  readonly record?: { readonly state?: string };
  readonly taskState?: string;
  readonly ok?: boolean;
}

const isWorkingTask = (t: Json) => t.status?.state === 'TASK_STATE_WORKING';
const isPendingRecord = (r: Json) =>
  r.record?.state === 'REMINDER_STATE_PENDING' && r.taskState === 'TASK_STATE_WORKING';

/** The request function of an HTTP arm; each call verifies its response (README, Goals.6). */
export function httpArmCall(arm: HttpArm, t: HttpArmTarget): () => Promise<void> {
  let rpcId = 0;
  const jsonRpc = (path: string, method: string, params: unknown) =>
    httpCall(
      t.agent,
      t.port,
      'POST',
      path,
      JSON_HEADERS,
      JSON.stringify({ jsonrpc: '2.0', id: ++rpcId, method, params }),
    );
  const getTask = (path: string) => async () => {
    const r = await jsonRpc(path, 'GetTask', { id: pick(t.taskIds) });
    expectJsonRpc('GetTask', r.status, r.body, isWorkingTask);
  };
  const restGet = (prefix: string) => async () => {
    const r = await httpCall(t.agent, t.port, 'GET', `${prefix}/tasks/${pick(t.taskIds)}`, {
      ...A2A_HEADERS,
    });
    expectRest('GET /tasks/{id}', r.status, r.body, isWorkingTask);
  };
  switch (arm) {
    case 'express-noop':
      return async () => {
        const r = await httpCall(t.agent, t.port, 'POST', HTTP_PATHS.noop, JSON_HEADERS, '{"n":1}');
        expectRest('no-op', r.status, r.body, (j) => j.ok === true);
      };
    case 'jsonrpc-get':
      return getTask(HTTP_PATHS.jsonrpc);
    case 'jsonrpc-get-stock':
      return getTask(HTTP_PATHS.jsonrpcStock);
    case 'jsonrpc-inject':
      return async () => {
        const params = injectReminderJson(pick(t.taskIds), t.ids.next(), t.ids.dedupeKey);
        const r = await jsonRpc(HTTP_PATHS.jsonrpc, 'InjectTaskReminder', params);
        expectJsonRpc('InjectTaskReminder', r.status, r.body, isPendingRecord);
      };
    case 'rest-get':
      return restGet(HTTP_PATHS.rest);
    case 'rest-get-stock':
      return restGet(HTTP_PATHS.restStock);
    case 'rest-inject':
      return async () => {
        const { taskId, ...body } = injectReminderJson(
          pick(t.taskIds),
          t.ids.next(),
          t.ids.dedupeKey,
        );
        const path = `${HTTP_PATHS.rest}/tasks/${taskId}:injectReminder`;
        const r = await httpCall(t.agent, t.port, 'POST', path, JSON_HEADERS, JSON.stringify(body));
        expectRest(':injectReminder', r.status, r.body, isPendingRecord);
      };
  }
}
