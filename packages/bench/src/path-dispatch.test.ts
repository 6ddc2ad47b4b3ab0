import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { dispatchByPath, pathPrefix } from './path-dispatch.js';
import { HTTP_PATHS } from './wire.js';

describe('pathPrefix', () => {
  it('is the first two segments, without the query', () => {
    expect(pathPrefix('/a2a/rest/tasks/t1')).toBe('/a2a/rest');
    expect(pathPrefix('/a2a/rest-stock/tasks/t1:injectReminder')).toBe('/a2a/rest-stock');
    expect(pathPrefix('/a2a/jsonrpc')).toBe('/a2a/jsonrpc');
    expect(pathPrefix('/a2a/jsonrpc?x=1')).toBe('/a2a/jsonrpc');
    expect(pathPrefix('/noop')).toBe('/noop');
    expect(pathPrefix('/admin/stats?gc=1')).toBe('/admin/stats');
    expect(pathPrefix('/')).toBe('/');
  });

  it('maps every A2A mount path to itself, so each is an entry of the dispatch', () => {
    const { noop, ...a2a } = HTTP_PATHS;
    expect(pathPrefix(noop)).toBe(noop);
    for (const path of Object.values(a2a)) {
      expect(pathPrefix(path)).toBe(path);
      expect(pathPrefix(`${path}/tasks/t1:injectReminder?x=1`)).toBe(path);
    }
  });
});

describe('dispatchByPath', () => {
  it('hands each request to the listener of its path, and every other path to the fallback', () => {
    const seen: string[] = [];
    const listener =
      (name: string): RequestListener =>
      (req) => {
        seen.push(`${name} ${req.url}`);
      };
    const dispatch = dispatchByPath(
      new Map([
        [HTTP_PATHS.rest, listener('rest')],
        [HTTP_PATHS.restStock, listener('rest-stock')],
      ]),
      listener('other'),
    );
    const res = {} as ServerResponse;
    for (const url of [
      '/a2a/rest/tasks/t1',
      '/a2a/rest-stock/tasks/t1',
      '/a2a/restx/tasks',
      '/noop',
    ]) {
      dispatch({ url } as IncomingMessage, res);
    }
    expect(seen).toEqual([
      'rest /a2a/rest/tasks/t1',
      'rest-stock /a2a/rest-stock/tasks/t1',
      'other /a2a/restx/tasks',
      'other /noop',
    ]);
  });
});
