#!/usr/bin/env node
import { parseCoordinatorArgs, UsageError } from './cli-args.js';
import { describeError } from './cli-errors.js';
import { cancelCommand, injectCommand, listCommand, watchCommand } from './commands.js';
import { runDemo } from './demo.js';

async function main(argv: readonly string[]): Promise<number> {
  let command: ReturnType<typeof parseCoordinatorArgs>;
  try {
    command = parseCoordinatorArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`error: ${error.message}\n\n${error.usage}`);
    return 2;
  }
  const write = (line: string) => console.log(line);
  switch (command.kind) {
    case 'help':
      write(command.text);
      return 0;
    case 'demo': {
      const result = await runDemo({
        connection: command.connection,
        write,
        timeoutMs: command.timeoutMs,
        ...(command.taskText !== undefined ? { taskText: command.taskText } : {}),
      });
      return result.ok ? 0 : 1;
    }
    case 'inject':
      await injectCommand(command, write);
      return 0;
    case 'list':
      await listCommand(command, write);
      return 0;
    case 'cancel':
      await cancelCommand(command, write);
      return 0;
    case 'watch':
      await watchCommand(command, write);
      return 0;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(describeError(error));
    process.exit(1);
  },
);
