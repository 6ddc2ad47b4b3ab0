import { describe, expect, it } from 'vitest';
import {
  DEFAULT_CARD_URL,
  DEFAULT_PG_URL,
  MAIN_USAGE,
  parseCoordinatorArgs,
  parseRunDemoArgs,
  RUN_DEMO_USAGE,
  USAGES,
  UsageError,
} from './cli-args.js';

const CARD = 'http://127.0.0.1:5000/.well-known/agent-card.json';

describe('coordinator command line', () => {
  it('prints the main usage for --help, -h or help', () => {
    for (const argv of [['--help'], ['-h'], ['help']]) {
      expect(parseCoordinatorArgs(argv)).toEqual({ kind: 'help', text: MAIN_USAGE });
    }
  });

  it('refuses a missing command as a usage error, so the CLI exits 2 with the usage', () => {
    expect(() => parseCoordinatorArgs([])).toThrow(UsageError);
    expect(() => parseCoordinatorArgs([])).toThrow('a command is required');
    try {
      parseCoordinatorArgs([]);
    } catch (error) {
      expect((error as UsageError).usage).toBe(MAIN_USAGE);
    }
  });

  it.each(['demo', 'inject', 'list', 'cancel', 'watch'] as const)(
    'prints the usage of %s for --help',
    (name) => {
      expect(parseCoordinatorArgs([name, '--help'])).toEqual({ kind: 'help', text: USAGES[name] });
      expect(USAGES[name]).toContain('--binding');
    },
  );

  it('parses demo with its defaults', () => {
    expect(parseCoordinatorArgs(['demo'])).toEqual({
      kind: 'demo',
      connection: { url: DEFAULT_CARD_URL, binding: 'jsonrpc', headers: {} },
      timeoutMs: 120_000,
    });
  });

  it('parses demo with every option', () => {
    const command = parseCoordinatorArgs([
      'demo',
      '--url',
      CARD,
      '--binding',
      'grpc',
      '--task',
      'Fix the flaky test',
      '--timeout-ms',
      '5000',
      '--header',
      'Authorization=Bearer t0k=n',
    ]);
    expect(command).toEqual({
      kind: 'demo',
      connection: { url: CARD, binding: 'grpc', headers: { authorization: 'Bearer t0k=n' } },
      taskText: 'Fix the flaky test',
      timeoutMs: 5000,
    });
  });

  it('parses inject with every reminder field', () => {
    const command = parseCoordinatorArgs([
      'inject',
      '--binding',
      'rest',
      '--url',
      CARD,
      '--task-id',
      'task-1',
      '--id',
      'cost-90',
      '--body',
      'Budget 90% spent.',
      '--dedupe-key',
      'cost',
      '--ttl-turns',
      '2',
      '--role-hint',
      'system',
      '--source',
      'cost-monitor',
      '--metadata',
      '{"percent":90}',
      '--tenant',
      'acme',
      '--json',
    ]);
    expect(command).toEqual({
      kind: 'inject',
      connection: { url: CARD, binding: 'rest', headers: {} },
      tenant: 'acme',
      taskId: 'task-1',
      reminder: {
        id: 'cost-90',
        body: 'Budget 90% spent.',
        dedupeKey: 'cost',
        ttlTurns: 2,
        roleHint: 'system',
        source: 'cost-monitor',
        metadata: { percent: 90 },
      },
      json: true,
    });
  });

  it('leaves the ttl range to the server', () => {
    const command = parseCoordinatorArgs([
      'inject',
      '--task-id',
      't',
      '--id',
      'r',
      '--body',
      'b',
      '--ttl-turns',
      '0',
    ]);
    expect(command).toMatchObject({ kind: 'inject', reminder: { ttlTurns: 0 } });
  });

  it('parses list, cancel and watch', () => {
    expect(parseCoordinatorArgs(['list', '--task-id', 't1'])).toEqual(
      expect.objectContaining({
        kind: 'list',
        taskId: 't1',
        tenant: '',
        json: false,
        liveOnly: false,
      }),
    );
    expect(parseCoordinatorArgs(['list', '--task-id', 't1'])).not.toHaveProperty('pageSize');
    expect(
      parseCoordinatorArgs([
        'list',
        '--task-id',
        't1',
        '--page-size',
        '0',
        '--page-token',
        'abc',
        '--live-only',
      ]),
    ).toMatchObject({ kind: 'list', pageSize: 0, pageToken: 'abc', liveOnly: true });
    expect(parseCoordinatorArgs(['cancel', '--task-id', 't1', '--id', 'r1'])).toMatchObject({
      kind: 'cancel',
      taskId: 't1',
      reminderId: 'r1',
    });
    expect(parseCoordinatorArgs(['watch', '--task-id', 't1', '--binding', 'grpc'])).toMatchObject({
      kind: 'watch',
      taskId: 't1',
      connection: { binding: 'grpc' },
    });
    expect(parseCoordinatorArgs(['watch', '--task-id', 't1'])).not.toHaveProperty('pushPort');
    expect(parseCoordinatorArgs(['watch', '--task-id', 't1', '--push', '0'])).toMatchObject({
      pushPort: 0,
    });
    expect(parseCoordinatorArgs(['watch', '--task-id', 't1', '--push', '8765'])).toMatchObject({
      pushPort: 8765,
    });
  });

  it.each([
    [['deploy'], 'unknown command "deploy"'],
    [['watch', '--task-id', 't', '--push', '65536'], '--push must be a port from 0 to 65535'],
    [['watch', '--task-id', 't', '--push', 'any'], '--push must be a port from 0 to 65535'],
    [['list', '--task-id', 't', '--push', '0'], '"list" does not take --push'],
    [['demo', '--binding', 'soap'], '--binding must be one of jsonrpc, rest, grpc'],
    [['demo', '--url', 'not a url'], '--url must be an absolute URL'],
    [['demo', '--task-id', 't1'], '"demo" does not take --task-id'],
    [['demo', '--header', 'novalue'], '--header must look like name=value'],
    [['demo', '--timeout-ms', '0'], '--timeout-ms must be a positive integer'],
    [['inject', '--id', 'r', '--body', 'b'], '--task-id is required'],
    [['inject', '--task-id', 't', '--body', 'b'], '--id is required'],
    [['inject', '--task-id', 't', '--id', 'r'], '--body is required'],
    [
      ['inject', '--task-id', 't', '--id', 'r', '--body', 'b', '--ttl-turns', 'two'],
      '--ttl-turns must be an integer',
    ],
    [
      ['inject', '--task-id', 't', '--id', 'r', '--body', 'b', '--metadata', '[1]'],
      '--metadata must be a JSON object',
    ],
    [['cancel', '--task-id', 't'], '--id is required'],
    [['list', '--frobnicate'], "Unknown option '--frobnicate'"],
    [['list', '--task-id', 't', '--page-size', 'ten'], '--page-size must be an integer'],
    [
      ['cancel', '--task-id', 't', '--id', 'r', '--live-only'],
      '"cancel" does not take --live-only',
    ],
  ])('rejects %j', (argv, message) => {
    expect(() => parseCoordinatorArgs(argv)).toThrow(UsageError);
    expect(() => parseCoordinatorArgs(argv)).toThrow(message);
  });

  it('attaches the subcommand usage to its errors', () => {
    try {
      parseCoordinatorArgs(['list']);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(UsageError);
      expect((error as UsageError).usage).toBe(USAGES.list);
    }
  });
});

describe('npm run demo command line (run-demo)', () => {
  it('prints its usage for --help, documenting the replica demo and its database', () => {
    expect(parseRunDemoArgs(['--help'])).toEqual({ kind: 'help', text: RUN_DEMO_USAGE });
    expect(RUN_DEMO_USAGE).toContain('--replicas <n>');
    expect(RUN_DEMO_USAGE).toContain(`--pg-url <url>`);
    expect(RUN_DEMO_USAGE).toContain(DEFAULT_PG_URL);
    expect(RUN_DEMO_USAGE).toContain('a2a_reminders_demo_<random>');
    expect(RUN_DEMO_USAGE).toContain('dropped at the end');
  });

  it('runs one worker over every binding by default', () => {
    expect(parseRunDemoArgs([])).toEqual({
      kind: 'run',
      options: {
        turnMs: 600,
        turns: 12,
        mode: { kind: 'bindings', bindings: ['jsonrpc', 'rest', 'grpc'] },
      },
    });
    expect(
      parseRunDemoArgs([
        '--binding',
        'grpc',
        '--turn-ms',
        '300',
        '--turns',
        '8',
        '--worker',
        'w.js',
      ]),
    ).toEqual({
      kind: 'run',
      options: {
        turnMs: 300,
        turns: 8,
        workerMain: 'w.js',
        mode: { kind: 'bindings', bindings: ['grpc'] },
      },
    });
  });

  it('runs replicas on the local server unless --pg-url names another', () => {
    expect(parseRunDemoArgs(['--replicas', '3'])).toEqual({
      kind: 'run',
      options: {
        turnMs: 600,
        turns: 12,
        mode: { kind: 'replicas', replicas: 3, pgUrl: DEFAULT_PG_URL },
      },
    });
    const pgUrl = 'postgresql://demo:secret@db.example:6543/template1';
    expect(parseRunDemoArgs(['--replicas', '2', '--pg-url', pgUrl])).toMatchObject({
      options: { mode: { kind: 'replicas', replicas: 2, pgUrl } },
    });
  });

  it.each([
    [['--replicas', '1'], '--replicas must be between 2 and 6, got 1'],
    [['--replicas', '7'], '--replicas must be between 2 and 6, got 7'],
    [['--replicas', 'three'], '--replicas must be a positive integer'],
    [['--replicas', '3', '--binding', 'rest'], '--binding does not apply with --replicas'],
    [['--pg-url', DEFAULT_PG_URL], '--pg-url applies with --replicas only'],
    [['--replicas', '3', '--pg-url', 'mysql://h/db'], '--pg-url must be a postgres:// URL'],
    [['--binding', 'soap'], 'unknown binding soap'],
    [['--turn-ms', '0'], '--turn-ms must be a positive integer'],
    [['--replica', '3'], "Unknown option '--replica'"],
  ])('rejects %j', (argv, message) => {
    let error: unknown;
    try {
      parseRunDemoArgs(argv);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toContain(message);
    expect((error as UsageError).usage).toBe(RUN_DEMO_USAGE);
  });
});
