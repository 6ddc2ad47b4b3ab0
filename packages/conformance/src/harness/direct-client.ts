import type { AgentCard } from '@a2a-js/sdk';
import { A2A_VERSION_HEADER, HTTP_EXTENSION_HEADER } from '@a2a-js/sdk';
import type { ServerCallContext } from '@a2a-js/sdk/server';
import type { ReminderCallOptions, ReminderClient, ReminderService } from '@a2a-reminders/core';
import { TASK_REMINDERS_EXTENSION_URI } from '@a2a-reminders/core';
import { buildCallContext } from '@a2a-reminders/core/protocol';
import {
  CancelTaskReminderRequestSchema,
  InjectTaskReminderRequestSchema,
  ListTaskRemindersRequestSchema,
} from '@a2a-reminders/proto';
import { create } from '@bufbuild/protobuf';
import { userFromAuthorization } from './users.js';

export interface DirectClientOptions {
  readonly reminders: ReminderService;
  readonly agentCard: AgentCard;
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * The reference arm's ReminderClient: calls core in process with a
 * ServerCallContext built by core's buildCallContext from the same headers
 * a binding client sends (A2A-Version 1.0, the extension activated), so the
 * direct arm resolves callers exactly as the bindings do.
 */
export function createDirectReminderClient(options: DirectClientOptions): ReminderClient {
  const contextOf = (call: ReminderCallOptions | undefined, tenant: string): ServerCallContext => {
    call?.signal?.throwIfAborted();
    const headers: Record<string, string> = {
      [A2A_VERSION_HEADER.toLowerCase()]: '1.0',
      [HTTP_EXTENSION_HEADER.toLowerCase()]: TASK_REMINDERS_EXTENSION_URI,
      ...lower(options.headers),
      ...lower(call?.headers),
    };
    return buildCallContext({
      user: userFromAuthorization(headers.authorization),
      headers,
      tenant,
      binding: 'JSONRPC',
      agentCard: options.agentCard,
    });
  };
  return {
    async injectTaskReminder(request, call) {
      const message = create(InjectTaskReminderRequestSchema, request);
      return options.reminders.injectTaskReminder(message, contextOf(call, message.tenant));
    },
    async listTaskReminders(request, call) {
      const message = create(ListTaskRemindersRequestSchema, request);
      return options.reminders.listTaskReminders(message, contextOf(call, message.tenant));
    },
    async cancelTaskReminder(request, call) {
      const message = create(CancelTaskReminderRequestSchema, request);
      return options.reminders.cancelTaskReminder(message, contextOf(call, message.tenant));
    },
  };
}

function lower(headers: Readonly<Record<string, string>> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(headers ?? {})) out[key.toLowerCase()] = value;
  return out;
}
