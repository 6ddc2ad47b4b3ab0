import type { TaskReminderRecord } from '@a2a-reminders/proto';
import type { DemoVerdict } from './demo-oracle.js';
import { describeRecord } from './format.js';
import type { Timeline } from './timeline.js';

export interface DemoSummary {
  readonly binding: string;
  readonly taskId: string;
  /** The task's final state, as the CLI shows it (`COMPLETED`). */
  readonly finalState: string;
  /** ListTaskReminders, every page. */
  readonly records: readonly TaskReminderRecord[];
  /** How many messages the task's history holds. */
  readonly historyLength: number;
  readonly verdict: DemoVerdict;
}

/**
 * The demo's closing lines: every listed record with its verdict, the
 * history check, and the result with each problem.
 */
export function reportDemo(timeline: Timeline, summary: DemoSummary): void {
  const { verdict } = summary;
  timeline.plain(
    `-- summary over ${summary.binding}: task ${summary.taskId} ended ${summary.finalState}`,
  );
  for (const record of summary.records) {
    const o = verdict.outcomes.find((x) => x.id === record.reminder?.id);
    const checked = o === undefined ? '' : `  expected ${o.expected}: ${o.ok ? 'ok' : 'WRONG'}`;
    timeline.plain(`   ${describeRecord(record)}${checked}`);
  }
  const inHistory = verdict.remindersInHistory;
  timeline.plain(
    `   history: ${verdict.userMessages} user message(s), ${summary.historyLength} in all; ` +
      `reminder text in history: ${inHistory.length === 0 ? 'none' : inHistory.join(', ')}`,
  );
  timeline.plain(
    verdict.problems.length === 0
      ? '   result: every reminder reached its expected fate'
      : `   result: FAILED\n${verdict.problems.map((p) => `   - ${p}`).join('\n')}`,
  );
}
