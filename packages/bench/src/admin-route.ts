import type { Request, Response } from 'express';

export interface HeapStats {
  readonly heapUsed: number;
  readonly rss: number;
  readonly gc: boolean;
}

/**
 * `GET /admin/stats[?gc=1]`: heap and RSS, after a full GC when asked and the
 * process runs with --expose-gc. Loopback-only bench server, never production.
 */
export function adminStats(req: Request, res: Response): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  const wantGc = req.query.gc === '1' && gc !== undefined;
  if (wantGc) {
    gc();
    gc();
  }
  const mem = process.memoryUsage();
  const stats: HeapStats = { heapUsed: mem.heapUsed, rss: mem.rss, gc: wantGc };
  res.json(stats);
}

/** `GET /admin/tasks`: the seeded task ids, so the load process can target them. */
export function adminTasks(ids: readonly string[]) {
  return (_req: Request, res: Response): void => {
    res.json({ ids });
  };
}
