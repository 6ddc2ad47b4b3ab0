// The client snippet of README.md, verbatim between the markers (readme.test.ts checks and runs it).
// README:start
import { connectToAgent } from '@a2a-reminders/client';
import { taskStateName } from '@a2a-reminders/core';

/** Tells a running task that its upstream PR merged; returns the task's state and live reminders. */
export async function remindOfMergedPr(agentUrl: string, taskId: string) {
  const agent = await connectToAgent(agentUrl, {
    binding: 'grpc',
    headers: { authorization: 'Bearer coordinator' },
  });
  try {
    const task = await agent.client.getTask({ tenant: '', id: taskId }, agent.requestOptions());
    await agent.reminders.injectTaskReminder({
      taskId,
      reminder: {
        id: 'upstream-pr-1234',
        body: 'Upstream PR #1234 merged; rebase before the next tool call.',
        dedupeKey: 'upstream:pr-1234',
      },
    });
    const { reminders } = await agent.reminders.listTaskReminders({ taskId, liveOnly: true });
    return {
      state: taskStateName(task.status?.state),
      live: reminders.map((r) => r.reminder?.id),
    };
  } finally {
    agent.close();
  }
}
// README:end
