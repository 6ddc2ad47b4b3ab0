import type { StreamResponse } from '@a2a-js/sdk';
import { Role, TaskState } from '@a2a-js/sdk';
import type { A2ARequestHandler } from '@a2a-js/sdk/server';
import { AgentEvent } from '@a2a-js/sdk/server';
import type { ReminderService, ReminderStore, ReminderTransaction } from '@a2a-reminders/core';
import { reminderEventsOf, TASK_REMINDERS_EXTENSION_URI, textMessage } from '@a2a-reminders/core';
import type { RequestHandler } from 'express';

/**
 * The deliberately broken agents of issue 15: one defect each, of the kinds
 * an implementation of the extension gets wrong. The kit must fail exactly
 * the rules each one breaks (kit-verdicts.test.ts).
 */
export const DEFECTS = [
  /** JSON-RPC answers REMINDER_NOT_FOUND with -32603 instead of the table's code (R39). */
  'error-table-entry',
  /** A new reminder with a live reminder's dedupe key displaces nothing (R15). */
  'dedupe-not-displacing',
  /** Reminders are surfaced on one turn more than their ttlTurns (R20). */
  'ttl-off-by-one',
  /** The agent puts each turn's reminder text into the task's history as an agent message. */
  'reminder-text-in-history',
  /** The reminder event batches never reach the task's streams (SendStreamingMessage, SubscribeToTask). */
  'events-missing-from-stream',
  /** Requests without the extension in A2A-Extensions are served (R3). */
  'extension-not-required',
  /** The A2A server gets the task store unwrapped, so each task keeps its last batch (R66). */
  'batches-stored',
] as const;

export type Defect = (typeof DEFECTS)[number];

/** A store whose transactions find no live reminder by dedupe key: nothing is ever displaced. */
export function withoutDedupe(store: ReminderStore): ReminderStore {
  return wrapTransactions(store, () => ({ liveWithDedupeKey: async () => [] }));
}

/**
 * A store whose turn boundaries see every live reminder with one turn more
 * than it was given; what they write keeps the given ttlTurns, so only the
 * surfacing is off (a record still lists its own ttl).
 */
export function withTtlOffByOne(store: ReminderStore): ReminderStore {
  return wrapTransactions(store, (tx) => {
    const given = new Map<string, number>();
    return {
      live: async () =>
        (await tx.live()).map((r) => {
          given.set(r.id, r.ttlTurns);
          return { ...r, ttlTurns: r.ttlTurns + 1 };
        }),
      put: (reminder) => {
        const ttl = given.get(reminder.id);
        tx.put(ttl === undefined ? reminder : { ...reminder, ttlTurns: ttl });
      },
    };
  });
}

function wrapTransactions(
  store: ReminderStore,
  override: (tx: ReminderTransaction) => Partial<ReminderTransaction>,
): ReminderStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      if (property === 'transact') {
        return <T>(
          key: Parameters<ReminderStore['transact']>[0],
          mutate: (tx: ReminderTransaction) => Promise<T>,
        ) =>
          target.transact(key, (tx) => {
            const changed = override(tx);
            const wrapped = new Proxy(tx, {
              get(t, p, r) {
                if (typeof p === 'string' && p in changed)
                  return changed[p as keyof ReminderTransaction];
                const value = Reflect.get(t, p, r) as unknown;
                return typeof value === 'function' ? value.bind(t) : value;
              },
            });
            return mutate(wrapped);
          });
      }
      // A turn without a transaction would skip the defect (R19's idle turn): take every turn in one.
      if (property === 'takeIdleTurn') return undefined;
      const value = Reflect.get(target, property, receiver) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** The reminder service, as the test agent sees it, publishing each turn's reminder text as an agent message. */
export function leakingTurns(reminders: ReminderService): Pick<ReminderService, 'beginTurn'> {
  return {
    async beginTurn(requestContext, bus) {
      const turn = await reminders.beginTurn(requestContext, bus);
      if (turn.reminders.length > 0) {
        const text = turn.reminders.map((r) => r.body).join('\n');
        bus.publish(
          AgentEvent.statusUpdate({
            taskId: requestContext.taskId,
            contextId: requestContext.contextId,
            status: {
              state: TaskState.TASK_STATE_WORKING,
              message: textMessage(Role.ROLE_AGENT, requestContext, text),
              timestamp: new Date().toISOString(),
            },
            metadata: undefined,
          }),
        );
      }
      return turn;
    },
  };
}

/**
 * The request handler with streams that leave out every status update
 * carrying reminder events: SendStreamingMessage and SubscribeToTask
 * answer as before, the reminder service and the task store see every event.
 */
export function withoutReminderEventsOnStreams(handler: A2ARequestHandler): A2ARequestHandler {
  const filtered = async function* (
    stream: AsyncGenerator<StreamResponse, void, undefined>,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    for await (const item of stream) if (reminderEventsOf(item).length === 0) yield item;
  };
  return new Proxy(handler, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function') return value;
      if (property === 'sendMessageStream' || property === 'resubscribe') {
        return (...args: unknown[]) =>
          filtered(
            (value as (...a: unknown[]) => AsyncGenerator<StreamResponse, void, undefined>).apply(
              target,
              args,
            ),
          );
      }
      return value.bind(target);
    },
  });
}

/**
 * JSON-RPC middleware: REMINDER_NOT_FOUND answers get the wrong code. It
 * rewrites the body as it is ended, the one place every answer passes.
 */
export const wrongNotFoundCode: RequestHandler = (_req, res, next) => {
  const end = res.end.bind(res) as (...args: unknown[]) => unknown;
  res.end = ((...args: unknown[]) => {
    const [chunk] = args;
    if (typeof chunk !== 'string' || res.headersSent) return end(...args);
    let body: { error?: { code?: number; data?: unknown } };
    try {
      body = JSON.parse(chunk) as typeof body;
    } catch {
      return end(...args);
    }
    const error = body.error;
    const reasons = Array.isArray(error?.data)
      ? (error.data as Array<{ reason?: unknown }>).map((d) => d.reason)
      : [];
    if (error === undefined || !reasons.includes('REMINDER_NOT_FOUND')) return end(...args);
    error.code = -32603;
    const text = JSON.stringify(body);
    res.setHeader('Content-Length', Buffer.byteLength(text));
    return end(text, ...args.slice(1));
  }) as typeof res.end;
  next();
};

/** HTTP middleware: every request is treated as if it activated the extension. */
export const alwaysActivatedHttp: RequestHandler = (req, _res, next) => {
  req.headers['a2a-extensions'] ??= TASK_REMINDERS_EXTENSION_URI;
  next();
};
