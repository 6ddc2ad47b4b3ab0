#!/usr/bin/env node
import { MODEL_API_KEY_ENV, parseWorkerArgs, UsageError, WORKER_USAGE } from './cli-args.js';
import { endpointModel } from './model-endpoint.js';
import { formatPromptForLog } from './turn-prompt.js';
import { startWorker } from './worker-server.js';

/** How long a clean stop may take before the process exits anyway (R73). */
const STOP_DEADLINE_MS = 25_000;

async function main(): Promise<number> {
  let command: ReturnType<typeof parseWorkerArgs>;
  try {
    command = parseWorkerArgs(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`error: ${error.message}\n\n${WORKER_USAGE}`);
    return 2;
  }
  if (command.kind === 'help') {
    console.log(command.text);
    return 0;
  }
  const { logPrompts, modelEndpoint, ...options } = command.options;
  const worker = await startWorker({
    ...options,
    ...(modelEndpoint === undefined
      ? {}
      : { model: endpointModel(modelEndpoint, process.env[MODEL_API_KEY_ENV]) }),
    ...(logPrompts ? { onPrompt: (p) => console.log(formatPromptForLog(p)) } : {}),
  });
  // Handlers go in before READY: a supervisor may signal the moment it reads the line.
  const stopped = new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  // Where the data lives, so a user can find (and delete) it.
  console.log(`STORE ${worker.storeLocation}`);
  if (worker.replica !== undefined) {
    console.log(`REPLICA ${worker.replica.id} lease-ms=${worker.replica.leaseMs}`);
  }
  if (options.delegateTests !== undefined) {
    const { url, binding } = options.delegateTests;
    console.log(`DELEGATE tests to ${url} over ${binding}`);
  }
  if (options.testAgent === true) {
    console.log('TEST-AGENT honouring the conformance kit contract (docs/conformance-kit.md)');
  }
  if (modelEndpoint !== undefined) {
    console.log(`MODEL ${modelEndpoint.model} at ${modelEndpoint.url}`);
  }
  if (worker.interruptedTasks > 0) {
    console.log(
      `RECOVERED ${worker.interruptedTasks} task(s) left running by a previous run, ended FAILED`,
    );
  }
  // The one line a supervisor waits for (issue 5).
  console.log(`READY http=${worker.httpBaseUrl} grpc=${worker.grpcAddress}`);
  await stopped;
  // R73: a clean stop ends its tasks before the database closes; a second
  // signal, or a stop that outlasts its deadline, forces the exit.
  const force = (why: string) => {
    console.error(`forced exit: ${why}; running tasks are left to the replicas' reapers (R53)`);
    process.exit(1);
  };
  process.once('SIGINT', () => force('a second signal'));
  process.once('SIGTERM', () => force('a second signal'));
  setTimeout(() => force(`stop took over ${STOP_DEADLINE_MS} ms`), STOP_DEADLINE_MS).unref();
  await worker.close();
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    process.exit(1);
  },
);
