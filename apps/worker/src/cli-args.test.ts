import { describe, expect, it } from 'vitest';
import { parseWorkerArgs, UsageError, WORKER_DEFAULTS } from './cli-args.js';

describe('worker command line', () => {
  it('uses the defaults when given nothing', () => {
    expect(parseWorkerArgs([])).toEqual({ kind: 'run', options: WORKER_DEFAULTS });
  });

  it('reads every flag', () => {
    const command = parseWorkerArgs([
      '--port',
      '0',
      '--grpc-port',
      '0',
      '--turns',
      '5',
      '--turn-ms',
      '20',
      '--log-prompts',
      '--host',
      '::1',
    ]);
    expect(command).toEqual({
      kind: 'run',
      options: { host: '::1', port: 0, grpcPort: 0, maxTurns: 5, turnMs: 20, logPrompts: true },
    });
  });

  it('accepts --flag=value', () => {
    const command = parseWorkerArgs(['--port=8080', '--grpc-port=8081']);
    expect(command).toMatchObject({ kind: 'run', options: { port: 8080, grpcPort: 8081 } });
  });

  it('answers --help with the usage', () => {
    const command = parseWorkerArgs(['--help']);
    expect(command.kind).toBe('help');
    expect(command.kind === 'help' && command.text).toContain('--grpc-port');
  });

  it.each([
    [['--port', 'eighty'], '--port must be an integer'],
    [['--port', '70000'], '--port must be between 0 and 65535'],
    [['--turns', '0'], '--turns must be between 1 and 1000'],
    [['--turn-ms', '-5'], '--turn-ms'],
    [['--verbose'], "Unknown option '--verbose'"],
    [['extra'], 'extra'],
  ])('rejects %j with a usage error', (argv, message) => {
    expect(() => parseWorkerArgs(argv)).toThrow(UsageError);
    expect(() => parseWorkerArgs(argv)).toThrow(message);
  });
});
