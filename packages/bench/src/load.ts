// The load process (README, What it measures): one arm, closed loop at concurrency 16.
// Driven over stdin by run-bench.ts: `run <ms> [<req/s>]` runs the loop for that long (paced
// at that rate when given and not 0) and prints `RESULT <json>`; `part <ms> [<req/s>]` does the
// same and keeps the run's samples, `drop` forgets the last part kept (`DROPPED`), `total` prints
// the parts kept summarized as one run (`RESULT`) and forgets them (an interleaved slice, README,
// What it measures); `exit` closes the clients. Prints `READY` when set up.
import { Agent } from 'node:http';
import { createInterface } from 'node:readline';
import { armCallFor } from './arm-call.js';
import { ARMS, isArmName } from './arms.js';
import { numberFlag, stringFlag } from './cli-args.js';
import { closedLoop, closedLoopSamples, type LoopSamples, summarizeLoops } from './closed-loop.js';
import { httpCall } from './http-call.js';
import { InjectIds } from './inject-request.js';
import type { TaskRef } from './send-reminder-request.js';

const argv = process.argv.slice(2);
const armName = stringFlag(argv, '--arm') ?? '';
if (!isArmName(armName)) throw new Error(`unknown --arm ${armName}`);
const concurrency = numberFlag(argv, '--concurrency', 16);
const httpPort = numberFlag(argv, '--http-port', 0);
const grpcPort = numberFlag(argv, '--grpc-port', 0);

const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
const seeded = await httpCall(agent, httpPort, 'GET', '/admin/tasks', {});
const taskIds = (JSON.parse(seeded.body) as { ids: string[] }).ids;
// The workaround's follow-ups run on tasks of their own (bench-stack.ts, follow-up pool).
const followUps: TaskRef[] =
  ARMS[armName].kind === 'send-reminder'
    ? (
        JSON.parse((await httpCall(agent, httpPort, 'GET', '/admin/followup-tasks', {})).body) as {
          tasks: TaskRef[];
        }
      ).tasks
    : [];
// The pool is retired after every workaround slice: a load started without a fresh one has none.
if (ARMS[armName].kind === 'send-reminder' && followUps.length === 0) {
  throw new Error(`${armName}: no follow-up pool (POST /admin/followup-tasks seeds one)`);
}
const ids = new InjectIds(armName);

const { call, close } = armCallFor(armName, { agent, httpPort, grpcPort, taskIds, ids, followUps });
// One verified call before READY, so a broken arm fails fast with its reason.
await call();
console.log(`READY ${ARMS[armName].label}`);

const parts: LoopSamples[] = [];
for await (const line of createInterface({ input: process.stdin })) {
  const [command, arg, pace] = line.trim().split(/\s+/);
  if (command === 'run') {
    const result = await closedLoop(call, concurrency, Number(arg), Number(pace ?? 0));
    console.log(`RESULT ${JSON.stringify(result)}`);
  } else if (command === 'part') {
    const part = await closedLoopSamples(call, concurrency, Number(arg), Number(pace ?? 0));
    parts.push(part);
    console.log(`RESULT ${JSON.stringify(summarizeLoops([part]))}`);
  } else if (command === 'drop') {
    // A drop or a total with nothing kept is the driver's bug: end, and its wait fails.
    if (parts.pop() === undefined) throw new Error('drop: no part kept');
    console.log('DROPPED');
  } else if (command === 'total') {
    if (parts.length === 0) throw new Error('total: no part kept');
    console.log(`RESULT ${JSON.stringify(summarizeLoops(parts))}`);
    parts.length = 0;
  } else if (command === 'exit') {
    break;
  }
}
close();
agent.destroy();
process.exit(0);
