import { readFileSync } from 'node:fs';
import { describeReadme } from '@a2a-reminders/test-support';
import { jsonRpcArm, post, rpcBody } from './testing/app.js';
import { createAgentApp } from './testing/readme-example.js';

describeReadme(jsonRpcArm, {
  readme: readFileSync(new URL('../README.md', import.meta.url), 'utf8'),
  example: readFileSync(new URL('./testing/readme-example.ts', import.meta.url), 'utf8'),
  createAgentApp,
  sendMessage: async (endpoint) => {
    const sent = await post(
      endpoint,
      rpcBody('SendMessage', {
        message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hi' }] },
      }),
    );
    return (sent.json.result as { task: { id: string } }).task.id;
  },
});
