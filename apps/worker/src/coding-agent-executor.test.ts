import type { StreamResponse } from '@a2a-js/sdk';
import { Role, TaskState } from '@a2a-js/sdk';
import { messageText, ReminderError, reminderEventsOf } from '@a2a-reminders/core';
import {
  InjectTaskReminderRequestSchema,
  ListTaskRemindersRequestSchema,
  ReminderState,
} from '@a2a-reminders/proto';
import { textAnswer, toolCallAnswer } from '@a2a-reminders/test-support';
import type { LanguageModelV3GenerateResult } from '@ai-sdk/provider';
import { create } from '@bufbuild/protobuf';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it, vi } from 'vitest';
import { collect, delegation, inProcessAgent } from './testing/in-process-agent.js';

const TASK = 'Add retry with exponential backoff to the HTTP client';
const REBASE = 'Upstream PR #4521 was merged into main. Rebase before you push.';
const BUDGET = 'Cost monitor: 90% of the budget is spent. Wrap up now.';

function progressTexts(items: readonly StreamResponse[]): string[] {
  return items
    .flatMap((i) =>
      i.payload?.$case === 'statusUpdate' ? [messageText(i.payload.value.status?.message)] : [],
    )
    .filter((t) => t.length > 0);
}

function taskIdOf(items: readonly StreamResponse[]): string {
  const first = items.find((i) => i.payload?.$case === 'task');
  if (first?.payload?.$case !== 'task') throw new Error('no task in the stream');
  return first.payload.value.id;
}

describe('coding agent loop', () => {
  it('runs its plan turn by turn and completes at the turn limit', async () => {
    const agent = inProcessAgent(5);
    const items = await collect(agent.handler.sendMessageStream(delegation(TASK), agent.context()));
    expect(progressTexts(items)).toEqual([
      `turn 1/5 plan: Plan the change: ${TASK}`,
      'turn 2/5 read: Read the code the change touches',
      'turn 3/5 edit: Edit the implementation (pass 1)',
      'turn 4/5 test: Run the test suite (pass 1)',
      `turn 5/5 report: Report: work on "${TASK}" is committed`,
      'Done in 5 turns.',
    ]);
    const last = items.at(-1);
    expect(last?.payload?.$case === 'statusUpdate' && last.payload.value.status?.state).toBe(
      TaskState.TASK_STATE_COMPLETED,
    );
  });

  it('waits out a store that cannot take a turn boundary, instead of failing the task (R69)', async () => {
    const agent = inProcessAgent(3);
    const beginTurn = agent.reminders.beginTurn.bind(agent.reminders);
    let refusals = 0;
    vi.spyOn(agent.reminders, 'beginTurn').mockImplementation(async (...args) => {
      if (refusals < 2) {
        refusals += 1;
        throw new ReminderError('UNAVAILABLE', 'the task store is unavailable');
      }
      return beginTurn(...args);
    });
    const items = await collect(agent.handler.sendMessageStream(delegation(TASK), agent.context()));
    expect(refusals).toBe(2);
    const last = items.at(-1);
    expect(last?.payload?.$case === 'statusUpdate' && last.payload.value.status?.state).toBe(
      TaskState.TASK_STATE_COMPLETED,
    );
  });

  it('renders a reminder into the next turn prompt only, as ambient context, never into history', async () => {
    const agent = inProcessAgent(6);
    let taskId = '';
    agent.turns.hooks.set(1, async (prompt) => {
      taskId = prompt.taskId;
      await agent.reminders.injectTaskReminder(
        create(InjectTaskReminderRequestSchema, {
          taskId,
          reminder: { id: 'pr-4521', body: REBASE, source: 'repo-watcher', ttlTurns: 1 },
        }),
        agent.context(),
      );
    });
    const items = await collect(agent.handler.sendMessageStream(delegation(TASK), agent.context()));

    const carrying = agent.turns.prompts.filter((p) =>
      p.messages.some((m) => m.content.includes(REBASE)),
    );
    expect(carrying.map((p) => p.turn)).toEqual([2]);
    const rendered = carrying[0]?.messages.filter((m) => m.content.includes(REBASE));
    expect(rendered).toEqual([
      {
        role: 'system',
        origin: 'reminder',
        content: `<system-reminder source="repo-watcher">\n${REBASE}\n</system-reminder>`,
      },
    ]);
    // The model reacted: turn 2 is a rebase step.
    expect(progressTexts(items)).toContain(
      'turn 2/6 rebase: Rebase the branch onto the updated main before going on',
    );
    // The reminder reached turn 2 and expired at turn 3's boundary.
    const events = items.flatMap((i) => reminderEventsOf(i));
    expect(events.map((e) => [e.reminderId, e.event.case])).toEqual([
      ['pr-4521', 'emitted'],
      ['pr-4521', 'expired'],
    ]);

    const task = await agent.handler.getTask({ tenant: '', id: taskId }, agent.context());
    const users = task.history.filter((m) => m.role === Role.ROLE_USER);
    expect(users.map(messageText)).toEqual([TASK]);
    expect(task.history.some((m) => messageText(m).includes(REBASE))).toBe(false);
  });

  it('renders a developer roleHint as a system message, the AI SDK prompt having no developer role (R37)', async () => {
    const agent = inProcessAgent(3);
    agent.turns.hooks.set(1, async (prompt) => {
      await agent.reminders.injectTaskReminder(
        create(InjectTaskReminderRequestSchema, {
          taskId: prompt.taskId,
          reminder: {
            id: 'ci-88',
            body: 'CI run 88: 2 tests failing.',
            source: 'ci',
            roleHint: 'developer',
          },
        }),
        agent.context(),
      );
    });
    const items = await collect(agent.handler.sendMessageStream(delegation(TASK), agent.context()));
    const turn2 = agent.turns.prompts.find((p) => p.turn === 2);
    // Providers map system to developer where a model wants that; never to user.
    expect(turn2?.messages.at(-1)).toMatchObject({ role: 'system', origin: 'reminder' });
    expect(progressTexts(items)).toContain(
      'turn 2/3 fix: Fix what CI reported, then re-run those tests',
    );
  });

  it('wraps up early on a cost-budget reminder', async () => {
    const agent = inProcessAgent(12);
    agent.turns.hooks.set(2, async (prompt) => {
      await agent.reminders.injectTaskReminder(
        create(InjectTaskReminderRequestSchema, {
          taskId: prompt.taskId,
          reminder: { id: 'cost-90', body: BUDGET, dedupeKey: 'cost', roleHint: 'system' },
        }),
        agent.context(),
      );
    });
    const items = await collect(agent.handler.sendMessageStream(delegation(TASK), agent.context()));
    expect(progressTexts(items).slice(-3)).toEqual([
      'turn 3/12 wrap-up: Budget nearly spent: stop new work, keep what passes, commit it',
      `turn 4/12 report: Report: work on "${TASK}" is committed`,
      'Done in 4 turns.',
    ]);
  });

  it('with no turn limit (--turns 0), keeps working turn after turn until it is cancelled', async () => {
    const agent = inProcessAgent(Number.POSITIVE_INFINITY);
    // Far past the default limit of 12 and the scripted plan's length.
    const lastTurn = 40;
    let cancelled: Promise<unknown> | undefined;
    agent.turns.hooks.set(lastTurn, async (prompt, signal) => {
      cancelled = agent.handler.cancelTask(
        { tenant: '', id: prompt.taskId, metadata: undefined },
        agent.context(),
      );
      await new Promise((resolve) => signal?.addEventListener('abort', resolve, { once: true }));
    });
    // Turns run back to back here, so the SDK's result manager may still be
    // saving earlier progress when the cancel stores CANCELED; it skips those
    // updates with a warning. That warning, and only it, is expected.
    const warned = vi.spyOn(console, 'warn').mockImplementation(() => {});
    let items: Awaited<ReturnType<typeof collect>>;
    try {
      items = await collect(agent.handler.sendMessageStream(delegation(TASK), agent.context()));
      await cancelled;
    } finally {
      warned.mockRestore();
    }
    for (const [message] of warned.mock.calls) {
      expect(String(message)).toMatch(
        /^ResultManager: ignoring status update 2 for terminal task /,
      );
    }
    const task = (await cancelled) as { status?: { state: TaskState } };
    expect(task.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(agent.turns.prompts.map((p) => p.turn)).toEqual(
      Array.from({ length: lastTurn }, (_, i) => i + 1),
    );
    const texts = progressTexts(items);
    expect(texts[0]).toBe(`turn 1/∞ plan: Plan the change: ${TASK}`);
    expect(texts).toContain('turn 13/∞ edit: Edit the implementation (pass 6)');
    expect(texts.some((t) => t.includes('report'))).toBe(false);
    expect(texts.at(-1)).toBe(`Cancelled after ${lastTurn} turns.`);
  });

  it('stops a cancelled task at its next turn boundary and drops its pending reminder', async () => {
    const agent = inProcessAgent(12);
    let cancelled: Promise<unknown> | undefined;
    agent.turns.hooks.set(2, async (prompt, signal) => {
      await agent.reminders.injectTaskReminder(
        create(InjectTaskReminderRequestSchema, {
          taskId: prompt.taskId,
          reminder: { id: 'late', body: REBASE },
        }),
        agent.context(),
      );
      cancelled = agent.handler.cancelTask(
        { tenant: '', id: prompt.taskId, metadata: undefined },
        agent.context(),
      );
      // Finish this turn only once the cancel has reached the loop.
      await new Promise((resolve) => signal?.addEventListener('abort', resolve, { once: true }));
    });
    const items = await collect(agent.handler.sendMessageStream(delegation(TASK), agent.context()));
    const taskId = taskIdOf(items);
    const task = (await cancelled) as { status?: { state: TaskState } };
    expect(task.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(agent.turns.prompts.map((p) => p.turn)).toEqual([1, 2]);
    const events = items.flatMap((i) => reminderEventsOf(i));
    expect(events.map((e) => [e.reminderId, e.event.case])).toEqual([['late', 'dropped']]);
    const { reminders } = await agent.reminders.listTaskReminders(
      create(ListTaskRemindersRequestSchema, { taskId }),
      agent.context(),
    );
    expect(reminders.map((r) => r.state)).toEqual([ReminderState.DROPPED]);
  });

  describe('on a model that does not follow the script', () => {
    const toolCall = (name: string, summary: string) => toolCallAnswer(name, name, { summary });

    it('takes a closing text answer as its report', async () => {
      const answers: LanguageModelV3GenerateResult[] = [
        toolCall('plan', 'Plan it'),
        textAnswer('All tests pass now.\nDetails follow.'),
      ];
      const model = new MockLanguageModelV3({ doGenerate: answers });
      const agent = inProcessAgent(5, model);
      const items = await collect(
        agent.handler.sendMessageStream(delegation(TASK), agent.context()),
      );
      expect(progressTexts(items)).toEqual([
        'turn 1/5 plan: Plan it',
        'turn 2/5 report: All tests pass now.',
        'Done in 2 turns.',
      ]);
    });

    it('requires the report tool on the last turn, and completes there even if the model will not report', async () => {
      const model = new MockLanguageModelV3({
        doGenerate: async () => toolCall('edit', 'More edits'),
      });
      const agent = inProcessAgent(3, model);
      const items = await collect(
        agent.handler.sendMessageStream(delegation(TASK), agent.context()),
      );
      expect(model.doGenerateCalls.map((c) => c.toolChoice)).toEqual([
        { type: 'auto' },
        { type: 'auto' },
        { type: 'tool', toolName: 'report' },
      ]);
      // The last turn's answer breaks the requirement: it is dropped, and the task completes.
      expect(progressTexts(items)).toEqual([
        'turn 1/3 edit: More edits',
        'turn 2/3 edit: More edits',
        'Done in 3 turns.',
      ]);
    });

    it('carries out one step per turn when the model calls several tools at once', async () => {
      const both: LanguageModelV3GenerateResult = {
        ...toolCall('edit', 'Edit it'),
        content: [...toolCall('edit', 'Edit it').content, ...toolCall('test', 'Test it').content],
      };
      const model = new MockLanguageModelV3({
        doGenerate: [both, toolCall('report', 'Reported')],
      });
      const agent = inProcessAgent(5, model);
      const items = await collect(
        agent.handler.sendMessageStream(delegation(TASK), agent.context()),
      );
      expect(progressTexts(items)).toEqual([
        'turn 1/5 edit: Edit it',
        'turn 2/5 report: Reported',
        'Done in 2 turns.',
      ]);
      // The second call of turn 1 was answered as refused, so the model knows it was not done.
      const results = model.doGenerateCalls[1]?.prompt.filter((m) => m.role === 'tool') ?? [];
      expect(JSON.stringify(results)).toContain('Not done: take one step per turn.');
    });

    it('aborts the model call in flight when the task is cancelled', async () => {
      let seenAbort = false;
      const model = new MockLanguageModelV3({
        doGenerate: async ({ abortSignal }) => {
          // Turn 1 answers; turn 2's call hangs until it is aborted.
          if (model.doGenerateCalls.length === 1) return toolCall('plan', 'Plan it');
          await new Promise<void>((resolve) => {
            if (abortSignal?.aborted) resolve();
            abortSignal?.addEventListener('abort', () => resolve(), { once: true });
          });
          seenAbort = abortSignal?.aborted === true;
          throw abortSignal?.reason;
        },
      });
      const agent = inProcessAgent(5, model);
      let cancelled: Promise<unknown> | undefined;
      agent.turns.hooks.set(2, (prompt) => {
        // Once the model has the call, cancel the task.
        setImmediate(() => {
          cancelled = agent.handler.cancelTask(
            { tenant: '', id: prompt.taskId, metadata: undefined },
            agent.context(),
          );
        });
      });
      const items = await collect(
        agent.handler.sendMessageStream(delegation(TASK), agent.context()),
      );
      const task = (await cancelled) as { status?: { state: TaskState } };
      expect(task.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
      expect(seenAbort).toBe(true);
      expect(progressTexts(items)).toEqual(['turn 1/5 plan: Plan it', 'Cancelled after 2 turns.']);
    });
  });
});
