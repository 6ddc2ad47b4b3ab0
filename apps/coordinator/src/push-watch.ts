import type { TaskStatus } from '@a2a-js/sdk';
import { isTerminalState } from '@a2a-reminders/core';
import type { CoordinatorCommand } from './cli-args.js';
import type { FollowedTask } from './demo-loop.js';
import { followTask } from './demo-loop.js';
import { describeStatus } from './format.js';
import { PushReceiver } from './push-receiver.js';
import { Timeline } from './timeline.js';
import { withWorker } from './with-worker.js';

type WatchCommand = Extract<CoordinatorCommand, { kind: 'watch' }>;

/**
 * How often, while no notification comes, the task's state is read to learn
 * of an end that was never pushed (push is best-effort, spec §16).
 */
const END_CHECK_MS = 2000;

/** How many of those checks may fail in a row before the worker counts as gone. */
const MAX_FAILED_CHECKS = 3;

/**
 * `watch --push <port>`: the task's events by push notification, with no
 * stream open. A webhook on this machine is registered on the task
 * (CreateTaskPushNotificationConfig) with a random token, every notification
 * is printed as `watch` prints the stream (reminder fates arrive as the
 * status updates of R30) until the task ends, and the registration is
 * removed, on Ctrl-C too. Push is best-effort (spec §16): an end that no
 * notification brings is read with GetTask, and ListTaskReminders stays the
 * record.
 */
export function pushWatchCommand(
  command: WatchCommand & { readonly pushPort: number },
  write: (line: string) => void,
): Promise<void> {
  return withWorker(command.connection, async (worker) => {
    const timeline = new Timeline(`${command.connection.binding} push`, write);
    const receiver = await PushReceiver.start({
      port: command.pushPort,
      onRefused: (reason) => timeline.line('refused', reason),
    });
    const id = { tenant: command.tenant, id: command.taskId };
    const config = {
      tenant: command.tenant,
      taskId: command.taskId,
      id: `coordinator-watch-${receiver.token.slice(0, 8)}`,
    };
    const statusNow = async (): Promise<TaskStatus | undefined> =>
      (await worker.client.getTask(id, worker.requestOptions())).status;
    const stop = () => void receiver.close();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    let registered = false;
    let endChecks: ReturnType<typeof setInterval> | undefined;
    try {
      const before = await statusNow();
      if (isTerminalState(before?.state)) {
        timeline.line(
          'state',
          `task ${command.taskId} had already ended: ${describeStatus(before)}`,
        );
        return;
      }
      await worker.client.createTaskPushNotificationConfig(
        { ...config, url: receiver.url, token: receiver.token, authentication: undefined },
        worker.requestOptions(),
      );
      registered = true;
      timeline.line(
        'push',
        `task ${command.taskId} notifies ${receiver.url} (config ${config.id}, token checked on each)`,
      );
      // An end no notification brings (the task ended while the config was
      // stored, a lost POST, a cancel that never reached a running
      // execution) is read off the task, seen terminal twice in a row.
      let terminalSeen: TaskStatus | undefined;
      let endedUnpushed: TaskStatus | undefined;
      // A worker that stops answering (it stopped, or moved) ends the watch
      // after a few checks in a row fail, as a broken stream would.
      let failures = 0;
      let lastFailure: unknown;
      endChecks = setInterval(() => {
        statusNow().then(
          (status) => {
            failures = 0;
            if (!isTerminalState(status?.state)) return;
            if (terminalSeen === undefined) {
              terminalSeen = status;
              return;
            }
            endedUnpushed = status;
            void receiver.close();
          },
          (error: unknown) => {
            failures += 1;
            lastFailure = error;
            if (failures >= MAX_FAILED_CHECKS) void receiver.close();
          },
        );
      }, END_CHECK_MS);
      let finalState: FollowedTask['finalState'];
      try {
        finalState = (
          await followTask({ items: receiver.items(), timeline, opened: () => {}, once: true })
        ).finalState;
      } catch (error) {
        // No notification came at all: the end, if any, is the checks' to tell.
        if (endedUnpushed === undefined && failures < MAX_FAILED_CHECKS) throw error;
      }
      if (failures >= MAX_FAILED_CHECKS) throw lastFailure;
      if (endedUnpushed !== undefined && !isTerminalState(finalState)) {
        timeline.line(
          'state',
          `${describeStatus(endedUnpushed)} (read from the task: no notification brought the end; ` +
            'fates may be missing here, `list` shows them all)',
        );
      }
    } finally {
      clearInterval(endChecks);
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      if (registered) {
        await worker.client
          .deleteTaskPushNotificationConfig(config, worker.requestOptions())
          .catch((error: unknown) =>
            timeline.line(
              'warning',
              `config ${config.id} could not be removed from the task: ${(error as Error).message}`,
            ),
          );
      }
      await receiver.close();
    }
  });
}
