import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { describe, expect, it, vi } from 'vitest';
import { exitText, stopWorker } from './worker-process.js';

/** A node child that prints READY once its SIGTERM handler is in. */
async function child(onSigterm: string) {
  const c = spawn(
    process.execPath,
    [
      '-e',
      `process.on('SIGTERM', () => { ${onSigterm} }); console.log('READY'); setInterval(() => {}, 1000);`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const ready = once(createInterface({ input: c.stdout }), 'line');
  const died = once(c, 'exit').then(() => {
    throw new Error('the child exited before READY');
  });
  await Promise.race([ready, died]);
  return c;
}

describe('stopWorker', () => {
  it('reports the code of a worker that exits on SIGTERM', async () => {
    const exit = await stopWorker(await child('process.exit(3);'));
    expect(exit).toEqual({ code: 3, signal: null, killedAfterGrace: false });
    expect(exitText(exit)).toBe('code 3');
  });

  it('reports the signal of a worker that a signal ended', async () => {
    const exit = await stopWorker(
      await child(`process.removeAllListeners('SIGTERM'); process.kill(process.pid, 'SIGTERM');`),
    );
    expect(exit).toEqual({ code: null, signal: 'SIGTERM', killedAfterGrace: false });
    expect(exitText(exit)).toBe('signal SIGTERM');
  });

  it('kills a worker still running after the grace period, and says so', async () => {
    const exit = await stopWorker(await child('/* ignored */'), 50);
    expect(exit).toEqual({ code: null, signal: 'SIGKILL', killedAfterGrace: true });
    expect(exitText(exit)).toBe('SIGKILL (still running after the grace period)');
  });

  it('reports how an exited worker ended without signalling it again', async () => {
    const c = await child('/* ignored */');
    await stopWorker(c, 50);
    const kill = vi.spyOn(c, 'kill');
    expect(await stopWorker(c)).toEqual({ code: null, signal: 'SIGKILL', killedAfterGrace: false });
    expect(kill).not.toHaveBeenCalled();
  });
});
