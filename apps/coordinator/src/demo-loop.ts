import type { StreamResponse, TaskState } from '@a2a-js/sdk';
import { isTerminalState, reminderEventsOf } from '@a2a-reminders/core';
import type { TaskReminderEvent } from '@a2a-reminders/proto';
import { TaskReminderEventSchema } from '@a2a-reminders/proto';
import { toBinary } from '@bufbuild/protobuf';
import type { DemoCase, DemoReminder } from './demo-cases.js';
import { describeReminderEvent, taskStateLabel } from './format.js';
import { progressOf, taskIdOf } from './stream-items.js';
import type { Timeline } from './timeline.js';

export interface FollowTaskOptions {
  /** The task's stream: SubscribeToTask, or SendStreamingMessage. */
  readonly items: AsyncIterable<StreamResponse>;
  /** Where the stream's events, progress and case titles go. */
  readonly timeline: Timeline;
  /** Called once, with the first item that names the task: from it on, no event is missed. */
  readonly opened: (taskId: string, item: StreamResponse) => void;
  /**
   * Each reminder event at most once. Push notifications may repeat an update
   * (every request that processes the task's events notifies, spec §16), as
   * an identical copy: an event equal to one already seen is that copy.
   */
  readonly once?: boolean;
  /** The demos' cases, and how to send one of their reminders (and print the answer). */
  readonly play?: {
    readonly cases: readonly DemoCase[];
    readonly inject: (taskId: string, sent: DemoReminder) => Promise<void>;
  };
}

/** What the stream showed, from its first item to its end. */
export interface FollowedTask {
  readonly taskId: string;
  /** The state of the last status update; undefined when none came. */
  readonly finalState: TaskState | undefined;
  /** Every reminder event the stream carried, in order. */
  readonly events: readonly TaskReminderEvent[];
}

/**
 * The event loop of both demos and of `watch`: reads the task's stream to its
 * end, prints every reminder event, progress update and artifact as it
 * arrives, and plays each case (if any) on its trigger: once the stream names the task (`subscribed`), or
 * once the stream shows the named reminder reaching a turn (its `emitted`
 * event, R21). Chaining on observed events, not sleeps, keeps the demo's
 * verdict independent of the machine's speed and of `--turn-ms`.
 */
export async function followTask(options: FollowTaskOptions): Promise<FollowedTask> {
  const { timeline } = options;
  const pending = [...(options.play?.cases ?? [])];
  const playCases = async (taskId: string, trigger: (c: DemoCase) => boolean) => {
    for (const demoCase of pending.filter(trigger)) {
      pending.splice(pending.indexOf(demoCase), 1);
      timeline.line('case', demoCase.title);
      for (const sent of demoCase.reminders) await options.play?.inject(taskId, sent);
    }
  };

  const events: TaskReminderEvent[] = [];
  const seen = new Set<string>();
  let taskId: string | undefined;
  let finalState: TaskState | undefined;
  for await (const item of options.items) {
    if (taskId === undefined) {
      taskId = taskIdOf(item);
      if (taskId === undefined) continue;
      options.opened(taskId, item);
      await playCases(taskId, (c) => c.after === 'subscribed');
    }
    for (const event of reminderEventsOf(item)) {
      if (options.once) {
        // Binary keeps unknown fields (R33), so two unknown kinds never collapse into one.
        const key = Buffer.from(toBinary(TaskReminderEventSchema, event)).toString('base64');
        if (seen.has(key)) continue;
        seen.add(key);
      }
      events.push(event);
      const { tag, text } = describeReminderEvent(event);
      timeline.line(tag, text);
      if (event.event.case === 'emitted') {
        const id = event.reminderId;
        await playCases(taskId, (c) => c.after !== 'subscribed' && c.after.reached === id);
      }
    }
    const progress = progressOf(item);
    if (progress !== undefined && item.payload?.$case === 'statusUpdate') {
      finalState = progress.state;
      if (isTerminalState(progress.state)) {
        const why = progress.text ? `: ${progress.text}` : '';
        timeline.line('state', `${taskStateLabel(progress.state)}${why}`);
      } else {
        timeline.line('progress', progress.text);
      }
    }
    if (item.payload?.$case === 'artifactUpdate') {
      timeline.line('artifact', `${item.payload.value.artifact?.name ?? 'artifact'} published`);
    }
  }
  if (taskId === undefined) throw new Error('the stream ended before it named the task');
  return { taskId, finalState, events };
}
