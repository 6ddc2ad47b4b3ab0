import { SendMessageRequest, TaskPushNotificationConfig, TaskState } from '@a2a-js/sdk';
import { A2AService } from '@a2a-js/sdk/server/grpc';
import { TaskReminderServiceDefinition } from '@a2a-reminders/grpc';
import type { InjectTaskReminderResponse } from '@a2a-reminders/proto';
import { ReminderState } from '@a2a-reminders/proto';
import * as grpc from '@grpc/grpc-js';
import type { ArmName } from './arms.js';
import type { InjectIds, InjectStyle } from './inject-request.js';
import { injectReminderMessage } from './inject-request.js';
import { GRPC_NOOP_PATH } from './noop-routes.js';
import { pick, roundRobin } from './pick-task.js';
import { PUSH_CONFIG_ID, pushConfigJson } from './push-config-request.js';
import { sendReminderJson, type TaskRef } from './send-reminder-request.js';
import { A2A_HEADERS } from './wire.js';

export interface GrpcArmTarget {
  /** One channel (one HTTP/2 connection) carrying all concurrent calls. */
  readonly client: grpc.Client;
  readonly taskIds: readonly string[];
  readonly ids: InjectIds;
  /** The send-reminder arm's own WORKING tasks (GET /admin/followup-tasks). */
  readonly followUps: readonly TaskRef[];
}

type GrpcArm = Extract<
  ArmName,
  | 'grpc-noop'
  | 'grpc-get'
  | 'grpc-inject'
  | 'grpc-inject-plain'
  | 'grpc-send-reminder'
  | 'grpc-push-config'
>;

const INJECT = TaskReminderServiceDefinition.injectTaskReminder;

function metadata(): grpc.Metadata {
  const md = new grpc.Metadata();
  for (const [key, value] of Object.entries(A2A_HEADERS)) md.set(key, value);
  return md;
}

function unary<Req, Res>(
  client: grpc.Client,
  path: string,
  serialize: (value: Req) => Buffer,
  deserialize: (bytes: Buffer) => Res,
  request: Req,
): Promise<Res> {
  return new Promise((resolve, reject) => {
    client.makeUnaryRequest(path, serialize, deserialize, request, metadata(), (error, value) => {
      if (error) reject(error);
      else if (value === undefined) reject(new Error(`${path}: empty response`));
      else resolve(value);
    });
  });
}

/** One call of a service method (the SDK's A2AService or the reminder binding's), its own codecs. */
function sdkCall<Req, Res>(
  client: grpc.Client,
  method: {
    readonly path: string;
    readonly requestSerialize: (value: Req) => Buffer;
    readonly responseDeserialize: (bytes: Buffer) => Res;
  },
  request: Req,
): Promise<Res> {
  return unary(client, method.path, method.requestSerialize, method.responseDeserialize, request);
}

const json = (value: unknown) => Buffer.from(JSON.stringify(value));
const parse = (bytes: Buffer) => JSON.parse(bytes.toString('utf8')) as { n?: unknown };

/**
 * One InjectTaskReminder over the generic client with the binding's codecs
 * (TaskReminderServiceDefinition); verifies the reply.
 */
function injectCall(t: GrpcArmTarget, style: InjectStyle, target: () => string) {
  return async () => {
    const request = injectReminderMessage(target(), t.ids.next(), style);
    const reply = (await sdkCall(t.client, INJECT, request)) as InjectTaskReminderResponse;
    if (reply.record?.state !== ReminderState.PENDING || reply.taskState !== 'TASK_STATE_WORKING') {
      throw new Error(`InjectTaskReminder: unexpected reply for ${request.reminder?.id}`);
    }
  };
}

/**
 * The request function of a gRPC arm through the @grpc/grpc-js client's
 * generic makeUnaryRequest; the codecs are each service's own (the SDK's
 * A2AService serializers, the reminder binding's TaskReminderServiceDefinition).
 */
export function grpcArmCall(arm: GrpcArm, t: GrpcArmTarget): () => Promise<void> {
  switch (arm) {
    case 'grpc-noop':
      return async () => {
        const reply = await unary(t.client, GRPC_NOOP_PATH, json, parse, { n: 1 });
        if (reply.n !== 1) throw new Error(`no-op: unexpected reply ${JSON.stringify(reply)}`);
      };
    case 'grpc-get': {
      const m = A2AService.getTask;
      return async () => {
        const request = { tenant: '', id: pick(t.taskIds) };
        const task = await sdkCall(t.client, m, request);
        if (task.status?.state !== TaskState.TASK_STATE_WORKING) {
          throw new Error(`GetTask: task ${task.id} not WORKING`);
        }
      };
    }
    case 'grpc-inject':
      return injectCall(t, 'displacing', () => pick(t.taskIds));
    case 'grpc-inject-plain':
      // Plain injects add to their task with every request: round robin (pick-task.ts).
      return injectCall(t, 'plain', roundRobin(t.taskIds));
    case 'grpc-push-config': {
      const m = A2AService.createTaskPushNotificationConfig;
      return async () => {
        const request = TaskPushNotificationConfig.fromJSON(pushConfigJson(pick(t.taskIds)));
        const reply = await sdkCall(t.client, m, request);
        if (reply.id !== PUSH_CONFIG_ID || reply.taskId !== request.taskId) {
          throw new Error(`CreateTaskPushNotificationConfig: unexpected reply ${reply.id}`);
        }
      };
    }
    case 'grpc-send-reminder': {
      const m = A2AService.sendMessage;
      const followUp = roundRobin(t.followUps);
      return async () => {
        const request = SendMessageRequest.fromJSON(sendReminderJson(followUp(), t.ids.next()));
        const reply = await sdkCall(t.client, m, request);
        const payload = reply.payload;
        if (
          payload?.$case !== 'task' ||
          payload.value.status?.state !== TaskState.TASK_STATE_WORKING
        ) {
          throw new Error(`SendMessage: unexpected reply ${payload?.$case ?? 'empty'}`);
        }
      };
    }
  }
}
