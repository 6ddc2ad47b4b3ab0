import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface, type Interface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { ArmName } from './arms.js';
import type { LoopResult } from './closed-loop.js';
import { stopChild } from './server-process.js';

const script = fileURLToPath(new URL('./load.js', import.meta.url));

/** A load process for one arm, driven line by line over its stdin/stdout. */
export class LoadProcess {
  /** Load processes not stopped yet, so an interrupted run can stop them. */
  private static readonly running = new Set<ChildProcess>();
  private readonly lines: AsyncIterator<string>;

  /** Stops every load process still running (SIGINT). */
  static stopAll(): void {
    for (const child of LoadProcess.running) stopChild(child);
  }

  private constructor(
    private readonly child: ChildProcess,
    private readonly reader: Interface,
  ) {
    this.lines = reader[Symbol.asyncIterator]();
  }

  static async start(
    arm: ArmName,
    httpPort: number,
    grpcPort: number,
    extraArgs: readonly string[] = [],
  ): Promise<LoadProcess> {
    const child = spawn(
      process.execPath,
      [
        script,
        '--arm',
        arm,
        '--http-port',
        String(httpPort),
        '--grpc-port',
        String(grpcPort),
        ...extraArgs,
      ],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    );
    if (child.stdout === null) throw new Error('load process has no stdout');
    const load = new LoadProcess(child, createInterface({ input: child.stdout }));
    LoadProcess.running.add(child);
    child.once('exit', () => LoadProcess.running.delete(child));
    await load.expect('READY');
    return load;
  }

  get pid(): number {
    return this.child.pid ?? 0;
  }

  /** Runs the closed loop for `ms` (paced at `paceReqPerSec` when given) and returns what it measured. */
  async run(ms: number, paceReqPerSec = 0): Promise<LoopResult> {
    this.child.stdin?.write(`run ${ms} ${paceReqPerSec}\n`);
    const line = await this.expect('RESULT ');
    return JSON.parse(line.slice('RESULT '.length)) as LoopResult;
  }

  stop(): void {
    this.child.stdin?.end('exit\n');
    this.reader.close();
    setTimeout(() => stopChild(this.child), 2000).unref();
  }

  private async expect(prefix: string): Promise<string> {
    for (;;) {
      const next = await this.lines.next();
      if (next.done) throw new Error(`load process ended before ${prefix.trim()}`);
      if (next.value.startsWith(prefix)) return next.value;
    }
  }
}
