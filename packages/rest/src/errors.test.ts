import { describeErrorRoundTrip, specErrorRow } from '@a2a-reminders/test-support';
import { expect } from 'vitest';
import { call, restArm } from './testing/app.js';

const body = JSON.stringify({ reminder: { id: 'r1', body: 'b' } });
const inject = (baseUrl: string) => call('POST', `${baseUrl}/tasks/task-1:injectReminder`, body);

// Every code as R39 gives it on REST (the spec's table, not restated), as a
// google.rpc.Status body with its details (R40); the client rebuilds the same error.
describeErrorRoundTrip(restArm, {
  async expectWire(server, thrown) {
    const { httpStatus, grpcStatus: status } = specErrorRow(thrown.code);
    const raw = await inject(server.endpoint);
    expect(raw.status).toBe(httpStatus);
    const error = raw.json.error as {
      code: number;
      status: string;
      message: string;
      details: unknown[];
    };
    expect(error).toMatchObject({ code: httpStatus, status, message: thrown.message });
    expect(error.details.map((d) => (d as { '@type': string })['@type'])).toEqual(
      thrown.toStatusDetails().map((d) => `type.googleapis.com/${d.$typeName}`),
    );
  },
  async expectHiddenFault(server) {
    const raw = await inject(server.endpoint);
    expect(raw.status).toBe(500);
    expect(raw.json).toEqual({
      error: { code: 500, status: 'INTERNAL', message: 'internal error', details: [] },
    });
  },
});
