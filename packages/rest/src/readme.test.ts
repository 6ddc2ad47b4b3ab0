import { readFileSync } from 'node:fs';
import { describeReadme } from '@a2a-reminders/test-support';
import { call, restArm } from './testing/app.js';
import { createAgentApp } from './testing/readme-example.js';

describeReadme(restArm, {
  readme: readFileSync(new URL('../README.md', import.meta.url), 'utf8'),
  example: readFileSync(new URL('./testing/readme-example.ts', import.meta.url), 'utf8'),
  createAgentApp,
  sendMessage: async (baseUrl) => {
    const sent = await call(
      'POST',
      `${baseUrl}/message:send`,
      JSON.stringify({
        message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hi' }] },
      }),
    );
    return (sent.json as { task: { id: string } }).task.id;
  },
});
