import { describe, expect, it } from 'vitest';
import { startAgentUnderTest } from './agent.js';
import type { Defect } from './defects.js';
import { failedRules, passCounts, runKitProcess } from './kit-process.js';

// Issue 15, "proof that it judges correctly": the kit, run as its users run
// it (the bin, in a process of its own), against agents built here, one
// correct and the others with one defect each (defects.ts), fails exactly
// the rules each defect breaks and no others. Every run checks all three
// bindings, so a defect of one binding shows on that binding only.

const BINDINGS = ['grpc', 'jsonrpc', 'rest'] as const;

/** `binding rule` for each binding: a defect every binding shows. */
function everywhere(...rules: string[]): string[] {
  return BINDINGS.flatMap((binding) => rules.map((rule) => `${binding} ${rule}`)).sort();
}

async function verdict(defect: Defect | undefined) {
  await using agent = await startAgentUnderTest(defect);
  // Awaited here: the agent is disposed when this function returns.
  const run = await runKitProcess(agent.cardUrl);
  return run;
}

/** What each defect breaks, as the spec's rules say it must show. */
const EXPECTED: Record<Defect, string[]> = {
  // Only that binding's error table (R39); the typed error a client rebuilds is intact.
  'error-table-entry': ['jsonrpc R39'],
  // Everything that displaces: dedupe itself, its reports, quota relief, states, listing, events.
  'dedupe-not-displacing': everywhere(
    'R1',
    'R15',
    'R16',
    'R17',
    'R18',
    'R25',
    'R30',
    'R34',
    'W4',
    'W8',
  ),
  // Everything that counts turns: surfacing, emitted and expired events, cancel and end of live ones.
  'ttl-off-by-one': everywhere('R20', 'R21', 'R22', 'R23', 'R25', 'R27', 'R30', 'W4', 'W8'),
  // Bodies in history (R38), and status updates the agent publishes with them (R30, R31).
  'reminder-text-in-history': everywhere('R30', 'R31', 'R38'),
  // Every rule a stream observes; GetTask, the rpcs and stock calls stay right (W5 passes).
  'events-missing-from-stream': everywhere(
    'R1',
    'R6',
    'R11',
    'R13',
    'R16',
    'R18',
    'R21',
    'R22',
    'R23',
    'R24',
    'R27',
    'R28',
    'R30',
    'R31',
    'R33',
    'R66',
    'W4',
    'W8',
  ),
  // Activation (R3), its error table row (R39, R40), and R60's check that activation comes first.
  'extension-not-required': everywhere('R3', 'R39', 'R40', 'R60'),
  // GetTask and ListTasks show the stored batch; streams, rpcs and stock calls stay right.
  'batches-stored': everywhere('R66'),
};

describe('the kit against agents built to pass or to fail', () => {
  it('passes every observable rule of a correct agent, on every binding', async () => {
    const run = await verdict(undefined);
    expect(failedRules(run.report), run.stdout).toEqual([]);
    expect(run.report.verdict).toBe('pass');
    expect(run.exitCode).toBe(0);
    for (const [binding, passed] of Object.entries(passCounts(run.report))) {
      expect(passed, binding).toBeGreaterThan(30);
    }
  });

  it('sends its --header on every call, the card request included', async () => {
    await using agent = await startAgentUnderTest(undefined, { token: 'kit-secret' });
    const refused = await runKitProcess(agent.cardUrl).catch((error: unknown) => error);
    expect(String(refused)).toContain('exit 2');
    const run = await runKitProcess(agent.cardUrl, [
      '--header',
      'authorization: Bearer kit-secret',
    ]);
    expect(failedRules(run.report), run.stdout).toEqual([]);
    expect(run.exitCode).toBe(0);
    for (const [binding, passed] of Object.entries(passCounts(run.report))) {
      expect(passed, binding).toBeGreaterThan(30);
    }
    // The token is sent, never shown.
    expect(run.stdout).not.toContain('kit-secret');
  });

  for (const [defect, rules] of Object.entries(EXPECTED) as Array<[Defect, string[]]>) {
    it(`fails exactly what ${defect} breaks`, async () => {
      const run = await verdict(defect);
      expect(failedRules(run.report), run.stdout).toEqual([...rules].sort());
      expect(run.report.verdict).toBe('fail');
      expect(run.exitCode).toBe(1);
      // A failure names its case and shows the calls behind it.
      const failure = run.report.bindings.flatMap((b) => b.rules).find((r) => r.status === 'fail')
        ?.failures[0];
      expect(failure?.errors.length).toBeGreaterThan(0);
      expect(failure?.meta?.exchanges?.length).toBeGreaterThan(0);
    });
  }
});
