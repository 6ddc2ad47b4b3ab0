// The mounting snippet of README.md, verbatim between the markers (readme.test.ts checks and runs it).
// README:start
import type { AgentCard } from '@a2a-js/sdk';
import type { AgentExecutor } from '@a2a-js/sdk/server';
import {
  DefaultExecutionEventBusManager,
  DefaultRequestHandler,
  InMemoryTaskStore,
} from '@a2a-js/sdk/server';
import { UserBuilder } from '@a2a-js/sdk/server/express';
import { createReminderService, withTaskReminders } from '@a2a-reminders/core';
import { restFallback, restHandlerWithReminders } from '@a2a-reminders/rest';
import express from 'express';

export function createAgentApp(agentCard: AgentCard, executor: AgentExecutor) {
  const taskStore = new InMemoryTaskStore();
  const eventBusManager = new DefaultExecutionEventBusManager();
  const reminders = createReminderService({ taskStore, eventBusManager });
  const requestHandler = new DefaultRequestHandler(
    withTaskReminders(agentCard, reminders),
    reminders.wrapTaskStore(taskStore),
    reminders.wrapExecutor(executor),
    eventBusManager,
  );
  const options = { requestHandler, userBuilder: UserBuilder.noAuthentication };

  const app = express();
  app.use('/a2a/rest', restHandlerWithReminders({ ...options, reminders }), ...restFallback());
  return app;
}
// README:end
