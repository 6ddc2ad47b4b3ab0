import { describe, expect, it } from 'vitest';
import { FinalOrder } from './final-order.js';

const contents = (order: FinalOrder) =>
  Array.from({ length: order.size }, (_, i) => order.at(i) as string);

describe('FinalOrder', () => {
  it('R48: hands out the oldest first, across the compactions of many purges', () => {
    const order = new FinalOrder();
    const expected: string[] = [];
    for (let i = 0; i < 1000; i += 1) {
      order.push(`r${i}`);
      expected.push(`r${i}`);
      // Keep 5, as a purge with maxRetainedFinalRemindersPerTask 5 would.
      const excess = order.size - 5;
      if (excess > 0) {
        expect(contents(order).slice(0, excess)).toEqual(expected.slice(0, excess));
        order.dropOldest(excess);
        expected.splice(0, excess);
      }
      expect(contents(order)).toEqual(expected);
    }
    expect(contents(order)).toEqual(['r995', 'r996', 'r997', 'r998', 'r999']);
  });

  it('undoes a push and a drop, newest first, as a rolled-back transaction does', () => {
    const order = new FinalOrder();
    for (const id of ['a', 'b', 'c']) order.push(id);
    order.push('d');
    order.dropOldest(3);
    expect(contents(order)).toEqual(['d']);
    order.restoreOldest(['a', 'b', 'c']);
    order.pop();
    expect(contents(order)).toEqual(['a', 'b', 'c']);
    expect(order.size).toBe(3);
  });

  it('undoes a drop that compacted, and a push before it', () => {
    const ids = Array.from({ length: 100 }, (_, i) => `r${i}`);
    const order = new FinalOrder();
    for (const id of ids) order.push(id);
    // 60 of 100 dropped: more than those kept, so the queue is compacted.
    order.dropOldest(60);
    expect(contents(order)).toEqual(ids.slice(60));
    order.restoreOldest(ids.slice(0, 60));
    order.pop();
    expect(contents(order)).toEqual(ids.slice(0, 99));
  });
});
