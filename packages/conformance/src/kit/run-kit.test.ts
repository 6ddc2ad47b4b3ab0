import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { aggregate, exitCodeOf } from './aggregate.js';
import type { KitReport } from './kit-report.js';
import { runCli } from './run-cli.js';
import { runKit } from './run-kit.js';

// The runner end to end: vitest started programmatically on the fixture
// files (src/kit/fixtures/*.kit-fixture.ts), which name and annotate their
// cases as the harness does in kit mode.

const FIXTURES = 'src/kit/fixtures';
const PASSING_AND_FAILING = [
  `${FIXTURES}/passing-and-failing.kit-fixture.ts`,
  `${FIXTURES}/not-observable.kit-fixture.ts`,
];

describe('runKit', () => {
  test('collects every case with its state, meta, errors and console, and the report fails the failing rule', async () => {
    const modules: string[] = [];
    const run = await runKit({
      include: PASSING_AND_FAILING,
      onModuleEnd: ({ file, passed, failed, skipped }) => {
        modules.push(`${file}: ${passed}/${failed}/${skipped}`);
      },
    });
    expect(run.runErrors).toEqual([]);
    expect(modules.sort()).toEqual([
      'src/kit/fixtures/not-observable.kit-fixture.ts: 1/0/1',
      'src/kit/fixtures/passing-and-failing.kit-fixture.ts: 3/1/0',
    ]);
    expect(run.cases).toHaveLength(6);
    const failed = run.cases.find((c) => c.state === 'failed');
    expect(failed?.meta).toMatchObject({
      rule: 'R13',
      binding: 'jsonrpc',
      variant: 'after the task ended',
    });
    expect(failed?.meta?.exchanges?.[0]?.call).toBe('InjectTaskReminder');
    expect(failed?.errors[0]?.message).toBe(
      "the re-send is answered with the original response: expected 'conflict' to be 'PENDING' // Object.is equality",
    );
    expect(failed?.errors[0]?.diff).toContain('Expected: "PENDING"');
    expect(failed?.console).toEqual(['stdout: the agent answered an error']);
    const skipped = run.cases.find((c) => c.state === 'skipped');
    expect(skipped?.meta?.notObservable).toBe('replicas are not visible from outside the agent');

    const report = aggregate(run, { bindings: ['jsonrpc', 'rest', 'grpc'], requirements: [] });
    const status = (binding: string) =>
      report.bindings.find((b) => b.binding === binding)?.rules.map((r) => `${r.rule} ${r.status}`);
    expect(status('jsonrpc')).toEqual(['R1 pass', 'R13 fail']);
    expect(status('rest')).toEqual(['R1 pass', 'R52 not observable']);
    expect(status('grpc')).toEqual(['R1 pass']);
    expect(report.verdict).toBe('fail');
    expect(exitCodeOf(report)).toBe(1);
    // vitest's own exit code is not left on the process.
    expect(process.exitCode).toBeUndefined();
  }, 120_000);

  test('a passing run exits 0', async () => {
    const run = await runKit({ include: [`${FIXTURES}/not-observable.kit-fixture.ts`] });
    const report = aggregate(run, { bindings: ['rest', 'grpc'], requirements: [] });
    expect(report.verdict).toBe('pass');
    expect(exitCodeOf(report)).toBe(0);
  }, 120_000);

  test('a file that fails to load, or no file at all, is a run error, never a pass', async () => {
    const broken = await runKit({
      include: [`${FIXTURES}/broken.kit-fixture.ts`, `${FIXTURES}/not-observable.kit-fixture.ts`],
    });
    expect(broken.runErrors).toEqual([
      'src/kit/fixtures/broken.kit-fixture.ts: Error: cannot register the cases: the agent card went away',
    ]);
    const report = aggregate(broken, { bindings: ['rest', 'grpc'], requirements: [] });
    expect(report.verdict).toBe('incomplete');
    expect(exitCodeOf(report)).toBe(1);

    const none = await runKit({ include: [`${FIXTURES}/no-such-file.kit-fixture.ts`] });
    expect(none.runErrors).toEqual(['no scenario file was found to run']);
  }, 120_000);
});

describe('the CLI end to end', () => {
  let server: Server;
  let cardUrl: string;
  let dir: string;

  beforeAll(async () => {
    server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          name: 'Fixture agent',
          capabilities: {
            extensions: [{ uri: 'https://a2a-reminders.dev/extensions/task-reminders/v1' }],
          },
          supportedInterfaces: [
            {
              url: 'http://127.0.0.1:1/jsonrpc',
              protocolBinding: 'JSONRPC',
              protocolVersion: '1.0',
            },
            {
              url: 'http://127.0.0.1:1/rest',
              protocolBinding: 'HTTP+JSON',
              protocolVersion: '1.0',
            },
          ],
        }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cardUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/card.json`;
    dir = await mkdtemp(join(tmpdir(), 'a2a-reminders-kit-'));
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });

  test('checks the card, hands the run its variables, prints the report, writes JUnit and JSON, and exits 1 for a failing rule', async () => {
    let stdout = '';
    let stderr = '';
    const code = await runCli(
      [
        '--card-url',
        cardUrl,
        '--binding',
        'jsonrpc,rest,grpc',
        '--header',
        'authorization: Bearer s3cr3t-token',
        '--junit',
        'out/junit.xml',
        '--json',
        'out/report.json',
      ],
      {
        stdout: (text) => {
          stdout += text;
        },
        stderr: (text) => {
          stderr += text;
        },
        env: {},
        cwd: dir,
      },
      {
        run: { include: [...PASSING_AND_FAILING, `${FIXTURES}/kit-env.kit-fixture.ts`] },
        requirements: [],
      },
    );
    expect(code).toBe(1);
    expect(stderr).toContain(
      'Checking Fixture agent on jsonrpc, rest; not served by the card: grpc\n',
    );
    expect(stderr).toContain(
      '  src/kit/fixtures/passing-and-failing.kit-fixture.ts: 3 passed, 1 failed, 0 not observable\n',
    );
    expect(stdout).toContain(`A2A task reminders conformance: ${cardUrl}`);
    expect(stdout).toContain('jsonrpc: 1 pass, 1 fail, 0 not observable');
    expect(stdout).toContain('1) [jsonrpc] R13-idempotent-resend (after the task ended)');
    expect(stdout).toContain('"authorization": "[redacted]"');
    expect(stdout).toMatch(/Verdict: FAIL: 1 rule check failed \(jsonrpc: R13\)\n$/);
    // The grpc case of the fixtures ran anyway (a fixture ignores the
    // bindings); the report shows it rather than hide a result.
    expect(stdout).toContain('grpc: 1 pass, 0 fail, 0 not observable');

    const junit = await readFile(join(dir, 'out/junit.xml'), 'utf8');
    expect(junit).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuites /);
    expect(junit).toContain('<testsuite name="a2a-reminders.jsonrpc" tests="2" failures="1"');
    const json = JSON.parse(await readFile(join(dir, 'out/report.json'), 'utf8')) as KitReport;
    expect(json.verdict).toBe('fail');
    expect(json.cardUrl).toBe(cardUrl);
    for (const text of [stdout, stderr, junit, JSON.stringify(json)]) {
      expect(text).not.toContain('s3cr3t-token');
    }
  }, 120_000);

  test('exits 2 without running anything for a usage error or a card it cannot use', async () => {
    const io = { stdout: () => {}, stderr: () => {}, env: {}, cwd: dir };
    expect(await runCli(['--binding', 'rest'], io)).toBe(2);
    expect(await runCli(['--card-url', cardUrl, '--binding', 'grpc'], io)).toBe(2);
    expect(await runCli(['--help'], io)).toBe(0);
  });
});
