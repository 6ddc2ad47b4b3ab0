import type { Agent } from 'node:http';
import type { ArmName } from './arms.js';
import { httpCall } from './http-call.js';
import { type InjectIds, type InjectStyle, injectReminderJson } from './inject-request.js';
import { pick, roundRobin } from './pick-task.js';
import { PUSH_CONFIG_ID, pushConfigJson } from './push-config-request.js';
import { sendReminderJson, type TaskRef } from './send-reminder-request.js';
import { A2A_HEADERS, HTTP_PATHS } from './wire.js';

export interface HttpArmTarget {
  readonly agent: Agent;
  readonly port: number;
  readonly taskIds: readonly string[];
  readonly ids: InjectIds;
  /** The send-reminder arms' own WORKING tasks (GET /admin/followup-tasks). */
  readonly followUps: readonly TaskRef[];
}

type HttpArm = Extract<
  ArmName,
  | 'express-noop'
  | 'jsonrpc-get'
  | 'jsonrpc-get-mounted'
  | 'jsonrpc-get-stock'
  | 'jsonrpc-inject'
  | 'jsonrpc-inject-plain'
  | 'jsonrpc-send-reminder'
  | 'jsonrpc-push-config'
  | 'rest-get'
  | 'rest-get-mounted'
  | 'rest-get-stock'
  | 'rest-inject'
  | 'rest-inject-plain'
  | 'rest-send-reminder'
  | 'rest-push-config'
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

function expectRest(
  what: string,
  status: number,
  body: string,
  check: (r: Json) => boolean,
  expectedStatus = 200,
) {
  if (status !== expectedStatus || !check(JSON.parse(body) as Json)) fail(what, status, body);
}

interface Json {
  readonly id?: string;
  readonly taskId?: string;
  readonly status?: { readonly state?: string };
  readonly record?: { readonly state?: string };
  readonly taskState?: string;
  readonly ok?: boolean;
  readonly task?: { readonly status?: { readonly state?: string } };
}

/** The stored push notification config, echoed (PUSH_CONFIG_ID, the task's id). */
const isPushConfig = (taskId: string) => (c: Json) =>
  c.id === PUSH_CONFIG_ID && c.taskId === taskId;
const isWorkingTask = (t: Json) => t.status?.state === 'TASK_STATE_WORKING';
const isPendingRecord = (r: Json) =>
  r.record?.state === 'REMINDER_STATE_PENDING' && r.taskState === 'TASK_STATE_WORKING';
/** A SendMessageResponse whose payload is the task, still WORKING. */
const isWorkingTaskReply = (r: Json) => r.task?.status?.state === 'TASK_STATE_WORKING';

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
  const jsonRpcInject = (style: InjectStyle, target: () => string) => async () => {
    const params = injectReminderJson(target(), t.ids.next(), style);
    const r = await jsonRpc(HTTP_PATHS.jsonrpc, 'InjectTaskReminder', params);
    expectJsonRpc('InjectTaskReminder', r.status, r.body, isPendingRecord);
  };
  const restInject = (style: InjectStyle, target: () => string) => async () => {
    const { taskId, ...body } = injectReminderJson(target(), t.ids.next(), style);
    const path = `${HTTP_PATHS.rest}/tasks/${taskId}:injectReminder`;
    const r = await httpCall(t.agent, t.port, 'POST', path, JSON_HEADERS, JSON.stringify(body));
    expectRest(':injectReminder', r.status, r.body, isPendingRecord);
  };
  // Plain injects and follow-ups add to their task with every request: round robin (pick-task.ts).
  const plainTarget = roundRobin(t.taskIds);
  const followUp = roundRobin(t.followUps);
  // The workaround runs on the stock paths: a deployment that uses it has no
  // extension to mount (its executor here is still the wrapped one).
  switch (arm) {
    case 'express-noop':
      return async () => {
        const r = await httpCall(t.agent, t.port, 'POST', HTTP_PATHS.noop, JSON_HEADERS, '{"n":1}');
        expectRest('no-op', r.status, r.body, (j) => j.ok === true);
      };
    case 'jsonrpc-get':
    case 'jsonrpc-get-mounted':
      return getTask(HTTP_PATHS.jsonrpc);
    case 'jsonrpc-get-stock':
      return getTask(HTTP_PATHS.jsonrpcStock);
    case 'jsonrpc-inject':
      return jsonRpcInject('displacing', () => pick(t.taskIds));
    case 'jsonrpc-inject-plain':
      return jsonRpcInject('plain', plainTarget);
    case 'jsonrpc-send-reminder':
      return async () => {
        const params = sendReminderJson(followUp(), t.ids.next());
        const r = await jsonRpc(HTTP_PATHS.jsonrpcStock, 'SendMessage', params);
        expectJsonRpc('SendMessage', r.status, r.body, isWorkingTaskReply);
      };
    case 'jsonrpc-push-config':
      return async () => {
        const taskId = pick(t.taskIds);
        const r = await jsonRpc(
          HTTP_PATHS.jsonrpc,
          'CreateTaskPushNotificationConfig',
          pushConfigJson(taskId),
        );
        expectJsonRpc('CreateTaskPushNotificationConfig', r.status, r.body, isPushConfig(taskId));
      };
    case 'rest-get':
    case 'rest-get-mounted':
      return restGet(HTTP_PATHS.rest);
    case 'rest-get-stock':
      return restGet(HTTP_PATHS.restStock);
    case 'rest-inject':
      return restInject('displacing', () => pick(t.taskIds));
    case 'rest-inject-plain':
      return restInject('plain', plainTarget);
    case 'rest-push-config':
      return async () => {
        const taskId = pick(t.taskIds);
        const { taskId: _inPath, ...body } = pushConfigJson(taskId);
        const path = `${HTTP_PATHS.rest}/tasks/${taskId}/pushNotificationConfigs`;
        const r = await httpCall(t.agent, t.port, 'POST', path, JSON_HEADERS, JSON.stringify(body));
        // The SDK answers a created config with 201.
        expectRest(
          'POST /tasks/{id}/pushNotificationConfigs',
          r.status,
          r.body,
          isPushConfig(taskId),
          201,
        );
      };
    case 'rest-send-reminder':
      return async () => {
        const body = JSON.stringify(sendReminderJson(followUp(), t.ids.next()));
        const path = `${HTTP_PATHS.restStock}/message:send`;
        const r = await httpCall(t.agent, t.port, 'POST', path, JSON_HEADERS, body);
        expectRest('message:send', r.status, r.body, isWorkingTaskReply);
      };
  }
}
