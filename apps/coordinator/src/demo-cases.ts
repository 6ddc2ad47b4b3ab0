import type { InjectFields } from './cli-args.js';

/** The coding task both demos delegate unless `--task` names another. */
export const DEFAULT_TASK_TEXT =
  'Add retry with exponential backoff to the HTTP client in src/http/client.ts';

/** One reminder the demo sends and the fate it expects for it. */
export interface DemoReminder {
  readonly reminder: InjectFields;
  readonly expected:
    | { readonly state: 'EXPIRED'; readonly by: 'ttl' }
    | { readonly state: 'DISPLACED'; readonly by: string };
}

/** One of the proposal's cases: what happened upstream, and the reminders it becomes. */
export interface DemoCase {
  readonly title: string;
  /** Played once the stream is open, or once the named reminder has reached a turn. */
  readonly after: 'subscribed' | { readonly reached: string };
  readonly reminders: readonly DemoReminder[];
}

/**
 * The proposal's three cases, chained on observed events rather than on
 * sleeps, so the demo holds at any `--turn-ms`: the rebase reminder goes out
 * when the stream is open, the CI event when the rebase reached a turn, the
 * cost alerts when the CI event did. The cases cover the three roleHint forms:
 * none (the worker falls back to a system message), `system` and `developer`.
 */
export const DEMO_CASES: readonly DemoCase[] = [
  {
    title: 'upstream PR #4521 merged into main: remind the worker to rebase',
    after: 'subscribed',
    reminders: [
      {
        reminder: {
          id: 'upstream-pr-4521',
          body: 'Upstream PR #4521 (shared retry helpers) was merged into main. Rebase your branch before you push.',
          dedupeKey: 'upstream-main',
          ttlTurns: 2,
          source: 'repo-watcher',
        },
        expected: { state: 'EXPIRED', by: 'ttl' },
      },
    ],
  },
  {
    title: 'CI finished on the branch: forward the result',
    after: { reached: 'upstream-pr-4521' },
    reminders: [
      {
        reminder: {
          id: 'ci-run-88',
          body: 'CI run 88 on branch retry-backoff: 2 tests failing in test/http/retry.test.ts.',
          dedupeKey: 'ci:retry-backoff',
          ttlTurns: 1,
          source: 'ci',
          roleHint: 'developer',
        },
        expected: { state: 'EXPIRED', by: 'ttl' },
      },
    ],
  },
  {
    title: 'the cost monitor fires three times in a row: only the latest may reach the worker',
    after: { reached: 'ci-run-88' },
    reminders: [50, 75, 90].map((percent, i, all): DemoReminder => {
      const next = all[i + 1];
      return {
        reminder: {
          id: `cost-${percent}`,
          body:
            `Cost monitor: ${percent}% of this task's $5.00 budget is spent.` +
            (percent >= 90 ? ' Wrap up now.' : ''),
          dedupeKey: 'cost-budget',
          ttlTurns: 1,
          source: 'cost-monitor',
          roleHint: 'system',
        },
        expected:
          next === undefined
            ? { state: 'EXPIRED', by: 'ttl' }
            : { state: 'DISPLACED', by: `cost-${next}` },
      };
    }),
  },
];

/** Every reminder of `cases`, in the order the demo sends them. */
export function remindersOf(cases: readonly DemoCase[]): readonly DemoReminder[] {
  return cases.flatMap((c) => c.reminders);
}

/** `DISPLACED by cost-75`, or `EXPIRED` for a reminder whose TTL is to run out. */
export function plannedFate({ expected }: DemoReminder): string {
  return expected.state === 'EXPIRED' ? 'EXPIRED' : `DISPLACED by ${expected.by}`;
}
