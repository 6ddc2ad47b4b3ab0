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
      '--store',
      'postgres://postgres@127.0.0.1:5432/reminders',
    ]);
    expect(command).toEqual({
      kind: 'run',
      options: {
        host: '::1',
        port: 0,
        grpcPort: 0,
        maxTurns: 5,
        turnMs: 20,
        logPrompts: true,
        store: 'postgres://postgres@127.0.0.1:5432/reminders',
      },
    });
  });

  it('keeps tasks and reminders in a SQLite file by default, and takes memory or sqlite:<file>', () => {
    expect(WORKER_DEFAULTS.store).toBe('sqlite:a2a-reminders-worker.sqlite');
    expect(parseWorkerArgs(['--store', 'memory'])).toMatchObject({ options: { store: 'memory' } });
    expect(parseWorkerArgs(['--store', 'sqlite:/tmp/w.db'])).toMatchObject({
      options: { store: 'sqlite:/tmp/w.db' },
    });
  });

  it('takes --turns 0 as no turn limit: a task works until it is cancelled', () => {
    expect(parseWorkerArgs(['--turns', '0', '--turn-ms', '2000'])).toMatchObject({
      options: { maxTurns: Number.POSITIVE_INFINITY, turnMs: 2000 },
    });
    expect(parseWorkerArgs(['--turns', '0'])).toMatchObject({
      options: { maxTurns: Number.POSITIVE_INFINITY, turnMs: WORKER_DEFAULTS.turnMs },
    });
  });

  it('takes an OpenAI-compatible endpoint with --model-url and --model', () => {
    expect(
      parseWorkerArgs(['--model-url', 'http://127.0.0.1:11434/v1', '--model', 'qwen3:8b']),
    ).toMatchObject({
      options: { modelEndpoint: { url: 'http://127.0.0.1:11434/v1', model: 'qwen3:8b' } },
    });
    expect(parseWorkerArgs([])).not.toHaveProperty('options.modelEndpoint');
  });

  it('delegates test steps with --delegate-tests, over jsonrpc unless --delegate-binding says otherwise', () => {
    expect(parseWorkerArgs(['--delegate-tests', 'http://127.0.0.1:41251'])).toMatchObject({
      options: { delegateTests: { url: 'http://127.0.0.1:41251', binding: 'jsonrpc' } },
    });
    const grpc = parseWorkerArgs([
      '--delegate-tests',
      'http://127.0.0.1:41251/.well-known/agent-card.json',
      '--delegate-binding',
      'grpc',
    ]);
    expect(grpc).toMatchObject({ options: { delegateTests: { binding: 'grpc' } } });
    expect(parseWorkerArgs([])).not.toHaveProperty('options.delegateTests');
  });

  it('takes the hop limit of forwarded reminders with --max-forward-hops (R60), 0 included', () => {
    expect(parseWorkerArgs(['--max-forward-hops', '0'])).toMatchObject({
      options: { maxForwardHops: 0 },
    });
    expect(parseWorkerArgs([])).not.toHaveProperty('options.maxForwardHops');
  });

  it('takes the SQLite lock wait and sync mode with --sqlite-busy-ms and --sqlite-sync (R69)', () => {
    const command = parseWorkerArgs(['--sqlite-busy-ms', '250', '--sqlite-sync', 'full']);
    expect(command).toMatchObject({ options: { sqliteBusyMs: 250, sqliteSync: 'full' } });
    expect(() => parseWorkerArgs(['--sqlite-sync', 'sometimes'])).toThrow(UsageError);
    expect(() => parseWorkerArgs(['--sqlite-busy-ms', '-1'])).toThrow(UsageError);
  });

  it('names the agent card with --name', () => {
    expect(parseWorkerArgs(['--name', 'test agent'])).toMatchObject({
      options: { name: 'test agent' },
    });
  });

  it("honours the conformance kit's test-agent contract only with --test-agent", () => {
    expect(parseWorkerArgs(['--test-agent'])).toMatchObject({ options: { testAgent: true } });
    expect(parseWorkerArgs([])).not.toHaveProperty('options.testAgent');
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
    [['--turns', '1001'], '--turns must be between 0 and 1000'],
    [['--turns', '0', '--turn-ms', '0'], '--turns 0 (no limit) needs --turn-ms of at least 500'],
    [['--turn-ms', '-5'], '--turn-ms'],
    [['--verbose'], "Unknown option '--verbose'"],
    [['extra'], 'extra'],
    [['--store', 'mysql://localhost/db'], '--store: Unsupported database URL'],
    [['--store', 'sqlite:'], '--store: No file in SQLite URL'],
    [['--model', 'gpt-4.1-mini'], '--model needs --model-url'],
    [['--model-url', 'http://127.0.0.1:8000/v1'], '--model-url needs --model <name>'],
    [['--model-url', 'localhost:8000', '--model', 'm'], '--model-url must be an http(s) URL'],
    [['--model-url', 'file:///etc/passwd', '--model', 'm'], '--model-url must be an http(s) URL'],
    [
      ['--model-url', 'https://user:sk-123@api.example.com/v1', '--model', 'm'],
      '--model-url must not carry credentials; set $A2A_REMINDERS_MODEL_API_KEY',
    ],
    [['--delegate-binding', 'rest'], '--delegate-binding needs --delegate-tests'],
    [['--delegate-tests', '127.0.0.1:41251'], '--delegate-tests must be an http(s) URL'],
    [
      ['--delegate-tests', 'http://127.0.0.1:41251', '--delegate-binding', 'soap'],
      '--delegate-binding must be one of jsonrpc, rest, grpc',
    ],
    [['--name', ' '], '--name must be 1 to 100 characters'],
    [['--max-forward-hops', '65'], '--max-forward-hops must be between 0 and 64'],
  ])('rejects %j with a usage error', (argv, message) => {
    expect(() => parseWorkerArgs(argv)).toThrow(UsageError);
    expect(() => parseWorkerArgs(argv)).toThrow(message);
  });
});
