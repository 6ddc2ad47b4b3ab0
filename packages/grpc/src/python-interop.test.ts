import { rm } from 'node:fs/promises';
import { createReminderService, TASK_REMINDERS_EXTENSION_URI } from '@a2a-reminders/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatePythonStubs, runPythonClient } from './testing/python-interop.js';
import type { TestServer } from './testing/test-server.js';
import { startTestServer, TaskState } from './testing/test-server.js';

/** What the Python client prints for a call it expected to fail. */
interface PythonFailure {
  code: string;
  statusCode: number;
  errorInfos: unknown[];
  fieldViolations: Array<{ field: string; description: string }>;
}

// Issue 4, cross-stack checks: a Python client generated from proto/ with
// Debian's protoc and grpc_python_plugin talks to the grpc-js server. No skip:
// without the toolchain this test fails and names what to install.
describe('Python gRPC client (protoc + grpc_python_plugin) against the grpc-js server', () => {
  let server: TestServer;
  let genDir: string | undefined;

  beforeAll(async () => {
    server = await startTestServer({
      reminders: ({ taskStore, eventBusManager }) =>
        createReminderService({ taskStore, eventBusManager }),
    });
    await server.seedTask('py-task', TaskState.TASK_STATE_WORKING);
    genDir = await generatePythonStubs();
  });
  afterAll(async () => {
    await server.close();
    if (genDir) await rm(genDir, { recursive: true, force: true });
  });

  it('injects a reminder and gets a typed INVALID_ARGUMENT for a bad one; forwards a copy with provenance and gets FORWARD_LOOP for a loop', async () => {
    const out = (await runPythonClient(genDir ?? '', server.target, 'py-task')) as {
      inject: Record<string, unknown>;
      injectInitialMetadata: Record<string, string>;
      invalid: PythonFailure;
      missingTask: PythonFailure;
      forwarded: Record<string, unknown>;
      loop: PythonFailure;
    };

    expect(out.inject).toMatchObject({
      record: {
        taskId: 'py-task',
        reminder: {
          id: 'py-reminder-1',
          body: 'Budget is 80% spent; prefer cheaper tools.',
          ttlTurns: 2,
          source: 'python-interop',
        },
        state: 'REMINDER_STATE_PENDING',
      },
      taskState: 'TASK_STATE_WORKING',
    });
    expect(out.injectInitialMetadata['a2a-extensions']).toBe(TASK_REMINDERS_EXTENSION_URI);

    expect(out.invalid.code).toBe('INVALID_ARGUMENT');
    expect(out.invalid.statusCode).toBe(3);
    expect(out.invalid.fieldViolations.map((v) => v.field)).toEqual(
      expect.arrayContaining(['reminder.id', 'reminder.body', 'reminder.ttlTurns']),
    );
    for (const v of out.invalid.fieldViolations) expect(v.description).not.toBe('');

    expect(out.missingTask.code).toBe('NOT_FOUND');
    expect(out.missingTask.errorInfos).toContainEqual(
      expect.objectContaining({ reason: 'TASK_NOT_FOUND', domain: 'a2a-protocol.org' }),
    );

    // Spec §15: provenance round-trips to Python, and a loop is refused with its own reason.
    expect(out.forwarded).toMatchObject({
      record: {
        reminder: {
          id: 'ci-run-7',
          provenance: {
            hops: [{ taskId: 'py-parent-task', reminderId: 'ci-run-7', source: 'ci' }],
          },
        },
        state: 'REMINDER_STATE_PENDING',
      },
    });
    expect(out.loop.code).toBe('INVALID_ARGUMENT');
    expect(out.loop.errorInfos).toContainEqual(
      expect.objectContaining({
        reason: 'FORWARD_LOOP',
        domain: 'a2a-reminders.dev',
        metadata: expect.objectContaining({ hop: '1' }),
      }),
    );
    expect(out.loop.fieldViolations.map((v) => v.field)).toEqual([
      'reminder.provenance.hops[1].taskId',
    ]);
  });
});
