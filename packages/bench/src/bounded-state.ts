// Bounded state (README, Bounded state): RSS growth and ListTaskReminders
// response size after many injects sharing one dedupeKey on one task, against
// a real bench server process. A figure, not a timed test.
// `npm run bench:bounded -w @a2a-reminders/bench [-- --injects 10000 --compare-unbounded]`.
import {
  DEFAULT_LIST_PAGE_SIZE,
  defaultReminderLimits,
  MAX_LIST_PAGE_SIZE,
} from '@a2a-reminders/core';
import { numberFlag } from './cli-args.js';
import { inParallel, jsonRpc } from './json-rpc-fetch.js';
import { type ServerProcess, startServer } from './server-process.js';
import { A2A_HEADERS, HTTP_PATHS } from './wire.js';

const argv = process.argv.slice(2);
const injects = numberFlag(argv, '--injects', 10_000);
const compareUnbounded = argv.includes('--compare-unbounded');

// The issue's "monitor keeps firing" case at the default limits' maximum sizes.
const BODY = 'x'.repeat(defaultReminderLimits.maxBodyChars);
const METADATA = metadataOf(defaultReminderLimits.maxMetadataBytes);

/** A metadata object whose JSON is exactly `bytes` bytes long. */
function metadataOf(bytes: number): { blob: string } {
  const overhead = JSON.stringify({ blob: '' }).length;
  return { blob: 'y'.repeat(bytes - overhead) };
}

interface PageWalk {
  readonly pages: number;
  readonly records: number;
  readonly bytes: number;
  readonly firstPageBytes: number;
}

interface BoundedStateResult {
  readonly label: string;
  readonly injects: number;
  readonly rssBefore: number;
  readonly rssAfter: number;
  readonly heapBefore: number;
  readonly heapAfter: number;
  readonly injectMs: number;
  /** RSS and heap (after forced GC) after each quarter of the injects, to show where they level off. */
  readonly checkpoints: readonly {
    readonly injects: number;
    readonly rss: number;
    readonly heap: number;
  }[];
  /** Every page with the default page size (no query parameters). */
  readonly byDefault: PageWalk;
  /** Every page of the largest size. */
  readonly byMax: PageWalk;
  /** liveOnly=true, one page. */
  readonly liveOnly: PageWalk;
}

/** GET …/tasks/{id}/reminders page by page over REST, counting response bytes as sent. */
async function walk(
  port: number,
  taskId: string,
  query: Record<string, string>,
): Promise<PageWalk> {
  let pageToken = '';
  let pages = 0;
  let records = 0;
  let bytes = 0;
  let firstPageBytes = 0;
  do {
    const params = new URLSearchParams({ ...query, ...(pageToken === '' ? {} : { pageToken }) });
    const suffix = params.size === 0 ? '' : `?${params.toString()}`;
    const res = await fetch(
      `http://127.0.0.1:${port}${HTTP_PATHS.rest}/tasks/${encodeURIComponent(taskId)}/reminders${suffix}`,
      { headers: A2A_HEADERS },
    );
    const body = Buffer.from(await res.arrayBuffer());
    if (res.status !== 200) throw new Error(`list answered ${res.status}: ${body.toString()}`);
    const page = JSON.parse(body.toString('utf8')) as {
      reminders?: unknown[];
      nextPageToken?: string;
    };
    pages += 1;
    if (pages === 1) firstPageBytes = body.length;
    bytes += body.length;
    records += page.reminders?.length ?? 0;
    pageToken = page.nextPageToken ?? '';
  } while (pageToken !== '');
  return { pages, records, bytes, firstPageBytes };
}

async function measure(
  label: string,
  server: ServerProcess,
  count: number,
): Promise<BoundedStateResult> {
  const port = server.httpPort;
  const task = await jsonRpc<{ task?: { id: string }; id?: string }>(port, 'SendMessage', {
    message: { messageId: `bounded-${label}`, role: 'ROLE_USER', parts: [{ text: 'monitor' }] },
    configuration: { returnImmediately: true },
  });
  const taskId = task.task?.id ?? task.id;
  if (taskId === undefined) throw new Error('SendMessage returned no task');
  const before = await server.stats(true);
  const checkpoints: BoundedStateResult['checkpoints'][number][] = [];
  let injectMs = 0;
  for (let quarter = 1; quarter <= 4; quarter += 1) {
    const from = Math.floor(((quarter - 1) * count) / 4);
    const to = Math.floor((quarter * count) / 4);
    const start = performance.now();
    // Concurrency 4: one task's injects serialize in its store transaction anyway.
    await inParallel(
      4,
      Array.from({ length: to - from }, (_, k) => async () => {
        await jsonRpc(port, 'InjectTaskReminder', {
          taskId,
          reminder: {
            id: `fire-${from + k}`,
            body: BODY,
            dedupeKey: 'cost-monitor',
            metadata: METADATA,
          },
        });
      }),
    );
    injectMs += performance.now() - start;
    const stats = await server.stats(true);
    checkpoints.push({ injects: to, rss: stats.rss, heap: stats.heapUsed });
  }
  const after = await server.stats(true);
  return {
    label,
    injects: count,
    rssBefore: before.rss,
    rssAfter: after.rss,
    heapBefore: before.heapUsed,
    heapAfter: after.heapUsed,
    injectMs,
    checkpoints,
    byDefault: await walk(port, taskId, {}),
    byMax: await walk(port, taskId, { pageSize: String(MAX_LIST_PAGE_SIZE) }),
    liveOnly: await walk(port, taskId, { liveOnly: 'true' }),
  };
}

const mib = (b: number) => `${(b / 1024 / 1024).toFixed(1)} MiB`;
const kib = (b: number) => `${(b / 1024).toFixed(1)} KiB`;
const size = (b: number) => (b >= 1024 * 1024 ? mib(b) : kib(b));

function boundedStateLines(r: BoundedStateResult): string {
  const w = (p: PageWalk) =>
    `${p.pages} page(s), ${p.records} records, ${size(p.bytes)} in all, first page ${size(p.firstPageBytes)}`;
  return [
    `${r.label}: ${r.injects} injects sharing one dedupeKey (body ${BODY.length} chars, metadata ${JSON.stringify(METADATA).length} B) in ${(r.injectMs / 1000).toFixed(1)} s`,
    `  RSS  ${mib(r.rssBefore)} -> ${mib(r.rssAfter)} (+${mib(r.rssAfter - r.rssBefore)})`,
    `  heap ${mib(r.heapBefore)} -> ${mib(r.heapAfter)} (+${mib(r.heapAfter - r.heapBefore)}) (after forced GC)`,
    `  after ${r.checkpoints.map((c) => c.injects).join(' / ')} injects: RSS ${r.checkpoints.map((c) => mib(c.rss)).join(' / ')}; heap ${r.checkpoints.map((c) => mib(c.heap)).join(' / ')}`,
    `  list, default page size ${DEFAULT_LIST_PAGE_SIZE}: ${w(r.byDefault)}`,
    `  list, pageSize=${MAX_LIST_PAGE_SIZE}: ${w(r.byMax)}`,
    `  list, liveOnly=true: ${w(r.liveOnly)}`,
  ].join('\n');
}

async function run(label: string, serverArgs: readonly string[]): Promise<void> {
  const server = await startServer(['--tasks', '0', ...serverArgs]);
  try {
    console.log(boundedStateLines(await measure(label, server, injects)));
  } finally {
    server.stop();
  }
}

const cap = defaultReminderLimits.maxRetainedFinalRemindersPerTask;
console.log(`bounded state (R48, R49); Node ${process.version}\n`);
await run(`default limits (maxRetainedFinalRemindersPerTask ${cap})`, []);
if (compareUnbounded) {
  console.log('');
  // Diagnostic: what the server did before R48, every final record kept while the task lives.
  await run('no cap on final records (diagnostic)', ['--max-retained-finals', String(injects * 2)]);
}
