import type { RequestListener } from 'node:http';

/** A URL's first two path segments (`/a2a/rest` of `/a2a/rest/tasks/t1?x=1`), or fewer when it has fewer. */
export function pathPrefix(url: string): string {
  return /^\/[^/?]*(?:\/[^/?]*)?/.exec(url)?.[0] ?? url;
}

/**
 * One request listener per mount path (README, What it measures): each
 * HTTP binding's routers are the first layers of an express app of their own,
 * so a request to one path walks none of another path's layers. In one app,
 * the stock paths, mounted after the extension's, walked its layers first and
 * paid for them. Every request pays the same lookup; paths of no entry go to
 * `other`.
 */
export function dispatchByPath(
  byPrefix: ReadonlyMap<string, RequestListener>,
  other: RequestListener,
): RequestListener {
  return (req, res) => {
    const listener = byPrefix.get(pathPrefix(req.url ?? '/')) ?? other;
    listener(req, res);
  };
}
