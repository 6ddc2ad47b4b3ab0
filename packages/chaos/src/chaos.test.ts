import { describe, expect, it } from 'vitest';
import { parseChaosArgs } from './cli-args.js';
import type { Fault } from './faults.js';
import { POSTGRES_FAULTS, SQLITE_FAULTS } from './faults.js';
import { formatReport, median } from './report.js';
import type { ChaosRow } from './run-chaos.js';
import { failures, runChaos } from './run-chaos.js';

function fault(faults: readonly Fault[], name: string): Fault {
  const found = faults.find((f) => f.name === name);
  if (found === undefined) throw new Error(`no fault ${name}`);
  return found;
}

function row(overrides: Partial<ChaosRow>): ChaosRow {
  return {
    store: 'postgres',
    fault: 'restart fast',
    detail: 'pg_ctl stop -m fast, then start',
    injected: true,
    processes: 3,
    alive: 3,
    acked: 10,
    lost: [],
    purged: 0,
    duplicates: [],
    misordered: [],
    errors: new Map([['UNAVAILABLE', 4]]),
    errorSamples: new Map(),
    hung: [],
    recoveryMs: [300, 500, 400],
    unrecovered: [],
    stuck: [],
    frozen: [],
    unchecked: [],
    faultFailures: [],
    notes: [],
    logs: [],
    ...overrides,
  };
}

describe('the report', () => {
  it('fails a row on each check, and ends with the count line alone', () => {
    expect(failures(row({}))).toEqual([]);
    expect(failures(row({ lost: ['r-1'] }))).toEqual(['1 lost']);
    expect(failures(row({ alive: 2 }))).toEqual(['1 dead process(es)']);
    expect(failures(row({ errors: new Map([['INTERNAL', 2]]) }))).toEqual(['2 INTERNAL']);
    expect(failures(row({ hung: ['x'] }))).toEqual(['1 hung']);
    expect(failures(row({ stuck: ['x'], duplicates: ['y'] }))).toEqual([
      '1 duplicate(s)',
      '1 stuck',
    ]);
    expect(failures(row({ injected: false, detail: 'EBUSY' }))).toEqual([
      'fault not injected: EBUSY',
    ]);
    expect(
      failures(row({ faultFailures: ['the worker did not stop cleanly on SIGTERM: exit code 1'] })),
    ).toEqual(['1 step(s) of the fault failed']);
    const lines = formatReport([row({}), row({ fault: 'cut LISTEN', misordered: ['s'] })]);
    expect(lines.at(-1)).toBe('1 passed, 1 failed');
    expect(lines[1]).toMatch(/^postgres\s+restart fast\s+3\/3\s+10\s+0\s+0\s+0\s+UNAVAILABLE 4\s/);
    expect(lines[1]).toMatch(/0\.4s\/0\.5s\s+0\s+0\s+pass$/);
  });

  it('takes the median of an odd and an even count', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 2, 3])).toBe(2.5);
    expect(median([])).toBeUndefined();
  });
});

describe('the command line', () => {
  it('picks faults by store and name', () => {
    const all = parseChaosArgs([]);
    expect(all.kind === 'run' && all.options.faults.length).toBe(
      POSTGRES_FAULTS.length + SQLITE_FAULTS.length,
    );
    const one = parseChaosArgs(['--store', 'sqlite', '--fault', 'file locked']);
    expect(one.kind === 'run' && one.options.faults.map((f) => f.name)).toEqual(['file locked']);
    expect(() => parseChaosArgs(['--fault', 'flood'])).toThrow('unknown --fault');
    expect(() => parseChaosArgs(['--store', 'sqlite', '--fault', 'cut LISTEN'])).toThrow(
      'no fault',
    );
  });
});

describe('npm test slice of npm run chaos', () => {
  // The same code as `npm run chaos`, three of its faults: three replicas on a PostgreSQL
  // cluster of the test's own through ended backends and a fast restart, and one worker
  // on a SQLite file another process locks past the busy timeout. Every count that fails
  // `npm run chaos` must be zero. Deadlines inside only bound a failure.
  it('loses, duplicates and misorders nothing; no INTERNAL, hang, dead process or stuck task', async () => {
    const rows = await runChaos({
      faults: [
        fault(POSTGRES_FAULTS, 'terminate backends'),
        fault(POSTGRES_FAULTS, 'restart fast'),
        fault(SQLITE_FAULTS, 'file locked'),
      ],
      leaseMs: 3_000,
      turnMs: 1_000,
      sqliteBusyMs: 2_000,
      deadlineMs: 30_000,
      log: () => {},
    });
    const report = formatReport(rows).join('\n');
    expect(
      rows.map((r) => [r.store, r.fault, failures(r)]),
      report,
    ).toEqual([
      ['postgres', 'terminate backends', []],
      ['postgres', 'restart fast', []],
      ['sqlite', 'file locked', []],
    ]);
    // The load ran through every fault: something was acknowledged on every row.
    expect(
      rows.map((r) => r.acked > 0),
      report,
    ).toEqual([true, true, true]);
  });
});
