import { inParallel, jsonRpc } from './json-rpc-fetch.js';
import type { ServerProcess } from './server-process.js';

export interface MemoryOptions {
  /** Tasks that get reminders; as many again are a control group without. */
  readonly tasks: number;
  /** Pending reminders per task (unique dedupe keys), below maxLiveRemindersPerTask. */
  readonly perTask: number;
  readonly retentionMs: number;
}

export interface MemoryResult {
  readonly reminders: number;
  readonly bodyChars: number;
  /** Heap (after forced GC) at each step, bytes. */
  readonly before: number;
  readonly afterInject: number;
  readonly afterDisplace: number;
  readonly afterEnd: number;
  /** Heap the SDK frees when one group of tasks ends (control group, no reminders). */
  readonly sdkFreedPerGroup: number;
  readonly bytesPerPending: number;
  readonly bytesPerDisplacedRecord: number;
  /** afterEnd minus what it would be with no trace of the reminders (before − 2 groups' SDK state). */
  readonly residual: number;
  /** Of the residual: the heap freed by dropping batches left in the ended tasks' metadata (R30; none by R66). */
  readonly storedBatches: number;
  /** How many of the ended tasks kept such a batch. */
  readonly tasksWithStoredBatch: number;
}

const BODY = 'x'.repeat(100);

interface TaskResult {
  readonly task?: { readonly id: string };
  readonly id?: string;
}

async function seed(port: number, n: number, tag: string): Promise<string[]> {
  const ids: string[] = [];
  await inParallel(
    16,
    Array.from({ length: n }, (_, i) => async () => {
      const r = await jsonRpc<TaskResult>(port, 'SendMessage', {
        message: { messageId: `${tag}-${i}`, role: 'ROLE_USER', parts: [{ text: tag }] },
        configuration: { returnImmediately: true },
      });
      const id = r.task?.id ?? r.id;
      if (id === undefined) throw new Error('SendMessage returned no task');
      ids.push(id);
    }),
  );
  return ids;
}

async function injectAll(port: number, taskIds: string[], perTask: number, wave: string) {
  const jobs = taskIds.flatMap((taskId) =>
    Array.from({ length: perTask }, (_, k) => async () => {
      await jsonRpc(port, 'InjectTaskReminder', {
        taskId,
        reminder: { id: `${wave}-${k}`, body: BODY, dedupeKey: `key-${k}`, ttlTurns: 3 },
      });
    }),
  );
  await inParallel(16, jobs);
}

async function cancelAll(port: number, taskIds: string[]) {
  await inParallel(
    16,
    taskIds.map((id) => async () => {
      await jsonRpc(port, 'CancelTask', { id });
    }),
  );
}

/**
 * README, Goals.4: heap per pending reminder, per displaced record kept
 * for ListTaskReminders, and what is left once the tasks ended and their
 * records passed retention (R35). A control group of tasks without reminders
 * is ended too, so the SDK's own per-task state freed at task end is known.
 */
export async function memoryPhase(server: ServerProcess, o: MemoryOptions): Promise<MemoryResult> {
  const port = server.httpPort;
  const withReminders = await seed(port, o.tasks, 'mem');
  const control = await seed(port, o.tasks, 'ctl');
  const heap = async () => (await server.stats(true)).heapUsed;

  const before = await heap();
  await injectAll(port, withReminders, o.perTask, 'first');
  const afterInject = await heap();
  await injectAll(port, withReminders, o.perTask, 'second');
  const afterDisplace = await heap();

  await cancelAll(port, control);
  const afterControlEnd = await heap();
  await cancelAll(port, withReminders);
  await new Promise((r) => setTimeout(r, o.retentionMs + 500));
  // Any reminder rpc runs the lazy retention sweep (R35); the list must come back empty.
  const listed = await jsonRpc<{ reminders?: unknown[] }>(port, 'ListTaskReminders', {
    taskId: withReminders[0],
  });
  if ((listed.reminders ?? []).length !== 0) throw new Error('records survived retention');
  const afterEnd = await heap();
  // What of the residual is event batches left in the stored tasks' metadata (R30): none, by R66.
  const dropped = await fetch(`http://127.0.0.1:${port}/admin/drop-stored-batches`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ids: withReminders }),
  });
  if (!dropped.ok) throw new Error(`drop-stored-batches: HTTP ${dropped.status}`);
  const tasksWithStoredBatch = ((await dropped.json()) as { dropped: number }).dropped;
  const afterDrop = await heap();

  const reminders = o.tasks * o.perTask;
  const sdkFreedPerGroup = afterDisplace - afterControlEnd;
  return {
    reminders,
    bodyChars: BODY.length,
    before,
    afterInject,
    afterDisplace,
    afterEnd,
    sdkFreedPerGroup,
    bytesPerPending: (afterInject - before) / reminders,
    bytesPerDisplacedRecord: (afterDisplace - afterInject) / reminders,
    residual: afterEnd - (before - 2 * sdkFreedPerGroup),
    storedBatches: afterEnd - afterDrop,
    tasksWithStoredBatch,
  };
}
