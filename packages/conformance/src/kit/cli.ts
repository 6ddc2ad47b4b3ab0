#!/usr/bin/env node
import { runCli } from './run-cli.js';

// The bin of @a2a-reminders/conformance: `npx a2a-reminders-conformance --card-url …`.

/** Resolves once `stream` has handed over everything written to it (pipes are asynchronous). */
function drained(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => stream.write('', () => resolve()));
}

let code: number;
try {
  code = await runCli(process.argv.slice(2), {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    cwd: process.cwd(),
  });
} catch (error) {
  // A bug of the kit, not a verdict on the agent.
  console.error(error);
  code = 1;
}
await Promise.all([drained(process.stdout), drained(process.stderr)]);
// Exit now: the verdict is out, and nothing the run may have left open
// (a socket, a timer of a worker's last case) should hold the process.
process.exit(code);
