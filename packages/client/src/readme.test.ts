import { readFileSync } from 'node:fs';
import { TaskState } from '@a2a-js/sdk';
import { saveTask } from '@a2a-reminders/test-support';
import { describe, expect, it } from 'vitest';
import { remindOfMergedPr } from './testing/readme-example.js';
import { startTestAgent } from './testing/test-agent.js';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const example = readFileSync(new URL('./testing/readme-example.ts', import.meta.url), 'utf8');

describe('README', () => {
  it('shows the client code that this test runs, verbatim', () => {
    const region = example.split('// README:start\n')[1]?.split('// README:end')[0];
    expect(region).toBeDefined();
    expect(readme).toContain(`\`\`\`ts\n${region}\`\`\``);
  });

  it('runs: the example reads the task over gRPC and reminds it', async () => {
    const agent = await startTestAgent();
    try {
      await saveTask(agent.taskStore, {
        id: 'task-1',
        state: TaskState.TASK_STATE_WORKING,
        user: 'coordinator',
      });
      expect(await remindOfMergedPr(agent.url, 'task-1')).toEqual({
        state: 'TASK_STATE_WORKING',
        live: ['upstream-pr-1234'],
      });
      expect(agent.seen.filter((c) => c.binding !== 'card').map((c) => c.binding)).toEqual([
        'grpc',
        'grpc',
        'grpc',
      ]);
    } finally {
      await agent.close();
    }
  });
});
