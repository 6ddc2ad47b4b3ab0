import { describe, expect, it } from 'vitest';
import { ARM_NAMES, ARMS, type ArmKind, roundOrder } from './arms.js';

describe('roundOrder', () => {
  it('runs every arm exactly once a round', () => {
    for (const round of [0, 1, 2, 3, 4, 5]) {
      expect([...roundOrder(round)].sort()).toEqual([...ARM_NAMES].sort());
    }
  });

  it('keeps each binding block as stock GetTask, GetTask, Inject displacing, plain, SDK write, workaround', () => {
    const kinds = (prefix: string) =>
      roundOrder(0)
        .filter((a) => a.startsWith(prefix) && ARMS[a].kind !== 'noop')
        .map((a) => ARMS[a].kind);
    const block: ArmKind[] = ['get', 'inject', 'inject-plain', 'sdk-write', 'send-reminder'];
    expect(kinds('jsonrpc-')).toEqual(['get-stock', ...block]);
    expect(kinds('rest-')).toEqual(['get-stock', ...block]);
    expect(kinds('grpc-')).toEqual(block);
    for (const round of [0, 1, 2, 3, 4]) {
      const order = roundOrder(round);
      const at = order.indexOf('rest-get-stock');
      expect(order.slice(at, at + 6)).toEqual([
        'rest-get-stock',
        'rest-get',
        'rest-inject',
        'rest-inject-plain',
        'rest-push-config',
        'rest-send-reminder',
      ]);
    }
  });

  it('rotates the blocks one position per round', () => {
    expect(roundOrder(0)[0]).toBe('express-noop');
    expect(roundOrder(1)[0]).toBe('jsonrpc-get-stock');
    expect(roundOrder(2)[0]).toBe('rest-get-stock');
    expect(roundOrder(3)[0]).toBe('grpc-noop');
    expect(roundOrder(4)[0]).toBe('grpc-get');
    expect(roundOrder(5)).toEqual(roundOrder(0));
  });
});
