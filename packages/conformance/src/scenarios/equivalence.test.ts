import type { JsonValue } from '@bufbuild/protobuf';
import { expect } from 'vitest';
import { runScript } from '../harness/equivalence-script.js';
import { specView, W8_TRANSCRIPT } from '../harness/equivalence-transcript.js';
import { errorSummary } from '../harness/observe.js';
import { callersOf, casesFor, ORDER_OF_CHECKS } from '../harness/unreadable-requests.js';
import { verifies } from '../harness/verifies.js';
import type { Wire } from '../harness/wire.js';
import { startWire } from '../harness/wire.js';

verifies('W8-transport-equivalence', async ({ wire }) => {
  const observed = await runScript(wire);
  // Every arm against the transcript written from the spec: an independent
  // reference, so the direct arm is not compared with itself, and the kit
  // holds an agent under test to the spec, not to this implementation's messages.
  expect(specView(observed)).toEqual(specView(W8_TRANSCRIPT));
});

verifies(
  'W8-transport-equivalence',
  async ({ wire }) => {
    // W8 proper: a wire arm observes exactly what the service in process does,
    // error messages and violation descriptions included.
    const reference = await startWire('direct');
    let expected: JsonValue[];
    try {
      expected = await runScript(reference);
    } finally {
      await reference[Symbol.asyncDispose]();
    }
    expect(await runScript(wire)).toEqual(expected);
  },
  { variant: 'exactly as the service in process', arms: ['jsonrpc', 'rest', 'grpc'] },
);

/**
 * The order-of-checks script (R45, issue 8 §4): requests the binding cannot
 * read in full, each sent by an anonymous unactivated caller, a known but
 * unactivated one and a known activated one. Every arm gives the codes R45
 * prescribes; a case that has a form on the direct arm gives exactly the
 * service's answer in process (message and violations included).
 */
async function runOrderOfChecks(wire: Wire): Promise<Record<string, JsonValue>> {
  const taskId = await wire.tasks.create({ user: 'alice' });
  const out: Record<string, JsonValue> = {};
  for (const unreadable of casesFor(wire.arm)) {
    const answers: JsonValue[] = [];
    for (const headers of callersOf('alice')) {
      const outcome = await unreadable.send(wire, taskId, headers);
      answers.push(outcome.ok ? 'ok' : errorSummary(outcome.error));
    }
    out[unreadable.name] = JSON.parse(JSON.stringify(answers).split(taskId).join('{task}'));
  }
  return out;
}

verifies(
  'W8-transport-equivalence',
  async ({ arm, wire }) => {
    const observed = await runOrderOfChecks(wire);
    const codes = Object.values(observed).map((answers) =>
      (answers as Array<{ code?: string }>).map((a) => a.code),
    );
    expect(codes.length).toBeGreaterThanOrEqual(2);
    for (const c of codes) expect(c).toEqual(ORDER_OF_CHECKS);
    if (arm === 'direct') return;
    const reference = await startWire('direct', { requireAuthentication: true });
    let expected: Record<string, JsonValue>;
    try {
      expected = await runOrderOfChecks(reference);
    } finally {
      await reference[Symbol.asyncDispose]();
    }
    const shared = Object.keys(observed).filter((name) => name in expected);
    expect(shared.length).toBeGreaterThanOrEqual(2);
    for (const name of shared)
      expect({ name, answers: observed[name] }).toEqual({ name, answers: expected[name] });
  },
  { variant: 'order of checks whatever the body', stack: { requireAuthentication: true } },
);
