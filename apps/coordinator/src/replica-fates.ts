import { TaskState } from '@a2a-js/sdk';
import type { Binding } from '@a2a-reminders/client';
import type { TaskReminderEvent, TaskReminderRecord } from '@a2a-reminders/proto';
import type { DemoReminder } from './demo-cases.js';
import { plannedFate } from './demo-cases.js';
import { reminderStateName, taskStateLabel } from './format.js';

/** One worker replica of a deployment sharing one PostgreSQL database. */
export interface Replica {
  /** Its `--replica-id`, e.g. `replica-2`. */
  readonly id: string;
  /** Its agent card URL. */
  readonly cardUrl: string;
}

/** Where one reminder was injected: a replica other than the task's, over one binding. */
export interface InjectRoute {
  readonly replica: Replica;
  readonly binding: Binding;
}

/** One reminder's fate as the caller saw it on the stream, and as each replica lists it. */
export interface ReplicaFate {
  readonly id: string;
  readonly route: InjectRoute;
  /** The state its final event on the first replica's stream names (`expired` → EXPIRED). */
  readonly streamed: string | undefined;
  /** How many final events that stream carried for it; R52 says exactly one. */
  readonly finalEvents: number;
  /** Its state in ListTaskReminders on each replica, in replica order. */
  readonly listed: readonly string[];
  /** The fate the demo's case planned for it, e.g. `DISPLACED by cost-75`. */
  readonly planned: string;
  /** The stream showed exactly one final event, and every replica lists that state. */
  readonly ok: boolean;
}

/** What the replica demo saw: the first replica's stream, and every replica's list. */
export interface ReplicaObservation {
  readonly sent: readonly DemoReminder[];
  readonly routes: ReadonlyMap<string, InjectRoute>;
  readonly finalState: TaskState | undefined;
  /** Every reminder event the first replica's stream carried, in order. */
  readonly events: readonly TaskReminderEvent[];
  /** ListTaskReminders on each replica, in replica order. */
  readonly lists: readonly (readonly TaskReminderRecord[])[];
}

export interface ReplicaVerdict {
  readonly fates: readonly ReplicaFate[];
  readonly problems: readonly string[];
}

/**
 * The replica demo's oracle: each reminder's stream on the task's replica
 * carried exactly one final event (R52), and every replica lists the state
 * that event names (R55); the task completed.
 */
export function judgeReplicaFates(runner: string, seen: ReplicaObservation): ReplicaVerdict {
  const fates = seen.sent.map((sent): ReplicaFate => {
    const { id } = sent.reminder;
    const final = seen.events.filter((e) => e.reminderId === id && e.event.case !== 'emitted');
    // Each final event is named for the state it ends in: `displaced` → DISPLACED.
    const streamed = final.at(-1)?.event.case?.toUpperCase();
    const listed = seen.lists.map((records) => {
      const record = records.find((r) => r.reminder?.id === id);
      return record === undefined ? 'MISSING' : reminderStateName(record.state);
    });
    return {
      id,
      route: seen.routes.get(id) as InjectRoute,
      streamed,
      finalEvents: final.length,
      listed,
      planned: plannedFate(sent),
      ok: final.length === 1 && listed.every((state) => state === streamed),
    };
  });

  const problems: string[] = [];
  if (seen.finalState !== TaskState.TASK_STATE_COMPLETED) {
    problems.push(`the task ended ${taskStateLabel(seen.finalState)}, expected COMPLETED`);
  }
  for (const f of fates.filter((x) => !x.ok)) {
    problems.push(
      `${f.id}: ${f.finalEvents} final event(s) on ${runner}'s stream` +
        `${f.streamed === undefined ? '' : ` (last ${f.streamed})`}; listed ${f.listed.join(', ')}`,
    );
  }
  return { fates, problems };
}

/** The replica demo's closing table: one line per reminder, then the problems. */
export function reportReplicaFates(
  write: (line: string) => void,
  heading: string,
  verdict: ReplicaVerdict,
): void {
  write(heading);
  const idWidth = Math.max(...verdict.fates.map((f) => f.id.length));
  for (const f of verdict.fates) {
    const agreed = f.listed.every((s) => s === f.streamed);
    const listed = agreed ? `listed ${f.streamed} on all ${f.listed.length}` : f.listed.join(', ');
    const planned = f.planned.startsWith(f.streamed ?? '-') ? '' : `  (planned: ${f.planned})`;
    write(
      `   ${f.id.padEnd(idWidth)}  accepted by ${f.route.replica.id} over ${f.route.binding.padEnd(7)}` +
        `  stream: ${(f.streamed ?? 'none').padEnd(9)}  ${listed}  ${f.ok ? 'ok' : 'MISMATCH'}${planned}`,
    );
  }
  for (const p of verdict.problems) write(`   - ${p}`);
}
