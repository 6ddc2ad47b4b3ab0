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
    return this.result(`run ${ms} ${paceReqPerSec}`);
  }

  /** Runs the loop as {@link run} does and keeps its samples for {@link total}. */
  async runPart(ms: number, paceReqPerSec = 0): Promise<LoopResult> {
    return this.result(`part ${ms} ${paceReqPerSec}`);
  }

  /** Forgets the last part kept (a part the contention gate re-runs). */
  async dropPart(): Promise<void> {
    this.child.stdin?.write('drop\n');
    await this.expect('DROPPED');
  }

  /** The parts kept since the last total, summarized as one run. */
  async total(): Promise<LoopResult> {
    return this.result('total');
  }

  stop(): void {
    this.child.stdin?.end('exit\n');
    this.reader.close();
    setTimeout(() => stopChild(this.child), 2000).unref();
  }

  private async result(command: string): Promise<LoopResult> {
    this.child.stdin?.write(`${command}\n`);
    const line = await this.expect('RESULT ');
    return JSON.parse(line.slice('RESULT '.length)) as LoopResult;
  }

  private async expect(prefix: string): Promise<string> {
    for (;;) {
      const next = await this.lines.next();
      if (next.done) throw new Error(`load process ended before ${prefix.trim()}`);
      if (next.value.startsWith(prefix)) return next.value;
    }
  }
}
