import type { JsonValue } from '@bufbuild/protobuf';
import { errorSummary, eventSummary, recordSummary } from './observe.js';
import type { Wire } from './wire.js';

/**
 * One script of injects (incl. dedupe, idempotent re-send, conflicts and
 * invalid ones), cancels, turns and task end; returns everything a caller can
 * observe, normalized (no timestamps, task ids replaced).
 */
export async function runScript(wire: Wire): Promise<JsonValue[]> {
  const taskId = await wire.tasks.create();
  const watch = await wire.tasks.subscribe(taskId);
  const out: JsonValue[] = [];
  const step = async (name: string, run: () => Promise<JsonValue>) => {
    try {
      out.push({ name, ok: await run() });
    } catch (error) {
      out.push({ name, error: errorSummary(error) });
    }
  };
  const inject =
    (id: string, extra: object = {}) =>
    async () => {
      const r = await wire.client.injectTaskReminder({
        taskId,
        reminder: { id, body: `body of ${id}`, ...extra },
      });
      return {
        record: recordSummary(r.record),
        displaced: r.displacedReminderIds,
        taskState: r.taskState,
      };
    };
  const cancel = (id: string) => async () =>
    recordSummary((await wire.client.cancelTaskReminder({ taskId, reminderId: id })).record);
  const turn = () => async () => {
    const t = await wire.tasks.turn(taskId);
    return {
      turn: t.turn,
      reminders: t.reminders.map((r) => `${r.id}:${r.turnsRemaining}:${r.firstSurfacing}`),
    };
  };
  await step('inject a', inject('a', { dedupeKey: 'k', ttlTurns: 2, metadata: { n: 1 } }));
  await step('re-send a', inject('a', { dedupeKey: 'k', ttlTurns: 2, metadata: { n: 1 } }));
  await step('conflict a', inject('a', { dedupeKey: 'k', ttlTurns: 3 }));
  await step(
    'inject b displaces a',
    inject('b', { dedupeKey: 'k', source: 'monitor', roleHint: 'system' }),
  );
  await step('invalid', inject('bad id', { ttlTurns: 0, body: ' ' }));
  await step('inject c', inject('c', { ttlTurns: 3 }));
  await step('turn 1', turn());
  await step('cancel c', cancel('c'));
  await step('cancel c again', cancel('c'));
  await step('cancel a (displaced)', cancel('a'));
  await step('cancel unknown', cancel('zzz'));
  await step('inject d', inject('d', { ttlTurns: 2 }));
  await step('turn 2', turn());
  await step('turn 3', turn());
  await step('inject e', inject('e'));
  await step('list', async () =>
    (await wire.client.listTaskReminders({ taskId })).reminders.map(recordSummary),
  );
  await wire.tasks.end(taskId, 'COMPLETED');
  await watch.untilEnded();
  await step('inject after end', inject('f'));
  await step(
    're-send a after end',
    inject('a', { dedupeKey: 'k', ttlTurns: 2, metadata: { n: 1 } }),
  );
  await step('list after end', async () =>
    (await wire.client.listTaskReminders({ taskId })).reminders.map(recordSummary),
  );
  out.push({ name: 'events', ok: watch.batches().map((b) => b.map(eventSummary)) });
  return JSON.parse(JSON.stringify(out).split(taskId).join('{task}')) as JsonValue[];
}
