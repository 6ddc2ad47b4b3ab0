import type { Agent } from 'node:http';
import * as grpc from '@grpc/grpc-js';
import type { ArmName } from './arms.js';
import { grpcArmCall } from './grpc-arm-calls.js';
import { httpArmCall } from './http-arm-calls.js';
import type { InjectIds } from './inject-request.js';
import type { TaskRef } from './send-reminder-request.js';

export interface ArmCallTarget {
  readonly agent: Agent;
  readonly httpPort: number;
  readonly grpcPort: number;
  readonly taskIds: readonly string[];
  readonly ids: InjectIds;
  readonly followUps: readonly TaskRef[];
}

/** One arm's request function, and what closes the client it opened. */
export interface ArmCall {
  readonly call: () => Promise<void>;
  readonly close: () => void;
}

/** The request function of any arm: gRPC arms on a channel of their own, HTTP arms on `agent`. */
export function armCallFor(name: ArmName, t: ArmCallTarget): ArmCall {
  switch (name) {
    case 'grpc-noop':
    case 'grpc-get':
    case 'grpc-inject':
    case 'grpc-inject-plain':
    case 'grpc-send-reminder':
    case 'grpc-push-config': {
      const client = new grpc.Client(`127.0.0.1:${t.grpcPort}`, grpc.credentials.createInsecure());
      return {
        call: grpcArmCall(name, { client, taskIds: t.taskIds, ids: t.ids, followUps: t.followUps }),
        close: () => client.close(),
      };
    }
    default:
      return {
        call: httpArmCall(name, {
          agent: t.agent,
          port: t.httpPort,
          taskIds: t.taskIds,
          ids: t.ids,
          followUps: t.followUps,
        }),
        close: () => {},
      };
  }
}
