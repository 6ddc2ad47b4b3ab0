import { describe, expect, it } from 'vitest';
import { serverCpuFigures } from './server-window.js';

describe('serverCpuFigures', () => {
  it('divides the whole and the main thread CPU by the requests, and the whole by the loop time', () => {
    expect(serverCpuFigures(1000, 150_000, 120_000, 100)).toEqual({
      serverCpuUsPerReq: 150,
      serverMainCpuUsPerReq: 120,
      serverCpuPct: 150,
    });
    const none = serverCpuFigures(0, 1, 1, 1);
    expect(Number.isNaN(none.serverCpuUsPerReq) && Number.isNaN(none.serverMainCpuUsPerReq)).toBe(
      true,
    );
  });

  it("gives the displacing inject's publish per request only when it is passed", () => {
    expect(serverCpuFigures(1000, 150_000, 120_000, 100, 12_000).publishCpuUsPerReq).toBe(12);
    expect('publishCpuUsPerReq' in serverCpuFigures(1000, 150_000, 120_000, 100)).toBe(false);
    expect(serverCpuFigures(0, 1, 1, 1, 1).publishCpuUsPerReq).toBeNaN();
  });
});
