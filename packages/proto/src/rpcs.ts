import type { DescMethod } from '@bufbuild/protobuf';
import { TaskReminderService } from './gen/a2a/reminders/v1/reminders_pb.js';
import type { HttpBinding } from './http-rules.js';
import { httpBindingsOf } from './http-rules.js';

/**
 * The rpc names of TaskReminderService (`InjectTaskReminder`, ...). They are
 * also the JSON-RPC method names, as A2A v1.0 names its own JSON-RPC methods
 * after its gRPC methods. Derived from the generated service, never restated.
 */
export type ReminderRpcName = Capitalize<keyof typeof TaskReminderService.method>;

/** Everything a binding needs to know about one rpc, read from the descriptor. */
export interface ReminderRpc {
  readonly name: ReminderRpcName;
  readonly method: DescMethod;
  /** The gRPC path, e.g. `/a2a.reminders.v1.TaskReminderService/InjectTaskReminder`. */
  readonly grpcPath: string;
  /** HTTP bindings from `google.api.http`: the primary rule, then the additional ones. */
  readonly http: readonly HttpBinding[];
}

/** The rpcs of TaskReminderService in declaration order. */
export const reminderRpcs: readonly ReminderRpc[] = TaskReminderService.methods.map((method) => ({
  name: method.name as ReminderRpcName,
  method,
  grpcPath: `/${TaskReminderService.typeName}/${method.name}`,
  http: httpBindingsOf(method),
}));

/** The JSON-RPC method names, in declaration order. */
export const reminderRpcNames: readonly ReminderRpcName[] = reminderRpcs.map((r) => r.name);

/** Looks up an rpc by name; `undefined` for a name that is not one of ours. */
export function findReminderRpc(name: string): ReminderRpc | undefined {
  return reminderRpcs.find((r) => r.name === name);
}
