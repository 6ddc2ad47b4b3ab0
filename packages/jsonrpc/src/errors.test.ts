import { describeErrorRoundTrip, specErrorRow } from '@a2a-reminders/test-support';
import { expect } from 'vitest';
import { jsonRpcArm, post, rpcBody } from './testing/app.js';

const injectBody = rpcBody('InjectTaskReminder', {
  taskId: 'task-1',
  reminder: { id: 'r1', body: 'b' },
});

// Every code as R39 gives it on JSON-RPC (the spec's table, not restated),
// with its details in `data` (R40); the client rebuilds the same error.
describeErrorRoundTrip(jsonRpcArm, {
  async expectWire(server, thrown) {
    const { jsonRpcCode: rpcCode, jsonRpcHttpStatus: httpStatus } = specErrorRow(thrown.code);
    const raw = await post(server.endpoint, injectBody);
    expect(raw.status).toBe(httpStatus);
    const error = raw.json.error as { code: number; message: string; data?: unknown[] };
    expect(error.code).toBe(rpcCode);
    expect(error.message).toBe(thrown.message);
    const data = (error.data ?? []) as Array<{ '@type': string }>;
    expect(data.map((d) => d['@type'])).toEqual(
      thrown.toStatusDetails().map((d) => `type.googleapis.com/${d.$typeName}`),
    );
  },
  async expectHiddenFault(server) {
    const raw = await post(server.endpoint, injectBody);
    expect(raw.status).toBe(500);
    expect(raw.json.error).toEqual({ code: -32603, message: 'internal error' });
  },
});
