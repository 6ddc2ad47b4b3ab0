import type { Artifact, Message, Part, SendMessageResult, Task } from '@a2a-js/sdk';
import { Role, TaskState } from '@a2a-js/sdk';

// The test-agent contract of docs/conformance-kit.md ("The test-agent
// contract"): the messages an agent under test honours so the conformance kit
// can hold tasks running and take turns on command, and the acknowledgements
// it answers with. Shared by the agent side (TestAgentExecutor) and the kit.

/** The key, in a user message's `metadata`, of a test-agent command. */
export const TEST_AGENT_METADATA_KEY = 'https://a2a-reminders.dev/conformance/test-agent';

/** The states `state` publishes: INPUT_REQUIRED ends the held task's execution, the others keep it running. */
export const TEST_AGENT_RUNNING_STATES = [
  'SUBMITTED',
  'WORKING',
  'INPUT_REQUIRED',
  'AUTH_REQUIRED',
] as const;
export type TestAgentRunningState = (typeof TEST_AGENT_RUNNING_STATES)[number];

/** The terminal states `end` publishes. */
export const TEST_AGENT_END_STATES = ['COMPLETED', 'FAILED', 'CANCELED', 'REJECTED'] as const;
export type TestAgentEndState = (typeof TEST_AGENT_END_STATES)[number];

/**
 * A control command: sent as a new message (no `taskId` on the message), it
 * acts on the held task `taskId` names, and is answered by a message holding
 * its {@link TestAgentAck}.
 */
export type TestAgentControlCommand =
  | { readonly command: 'turn'; readonly taskId: string }
  | { readonly command: 'settle'; readonly taskId: string }
  | { readonly command: 'state'; readonly taskId: string; readonly state: TestAgentRunningState }
  | { readonly command: 'end'; readonly taskId: string; readonly state: TestAgentEndState };

/**
 * One command of the contract, as it travels under {@link TEST_AGENT_METADATA_KEY}:
 * `hold` (a new task, or a follow-up resuming an INPUT_REQUIRED one), or a control command.
 */
export type TestAgentCommand = { readonly command: 'hold' } | TestAgentControlCommand;

/** What one reminder of an acknowledged turn says: everything but its text. */
export interface TestAgentAckReminder {
  readonly id: string;
  readonly turnsRemaining: number;
  readonly firstSurfacing: boolean;
}

/** The acknowledgement of a control command that could not be carried out. */
export interface TestAgentErrorAck {
  /** The command as sent (`''` when none could be read). */
  readonly command: string;
  /** The task as named (`''` when none could be read). */
  readonly taskId: string;
  /** Why the command was not carried out. */
  readonly error: string;
}

/**
 * The data of the acknowledgement answering a control command: the agent's
 * reply message holds it as its one data part. An error acknowledgement is
 * told apart by its `error` field (`'error' in ack`).
 */
export type TestAgentAck =
  | {
      readonly command: 'turn';
      readonly taskId: string;
      /** The turn number the boundary returned. */
      readonly turn: number;
      /** The reminders the boundary returned, in order. */
      readonly reminders: readonly TestAgentAckReminder[];
    }
  | {
      readonly command: 'settle';
      readonly taskId: string;
      /** The barrier artifact's id: once GetTask shows it, everything published before it is stored. */
      readonly artifactId: string;
    }
  | { readonly command: 'state'; readonly taskId: string; readonly state: TestAgentRunningState }
  | { readonly command: 'end'; readonly taskId: string; readonly state: TestAgentEndState }
  | TestAgentErrorAck;

/** Whether the message carries the contract's metadata key at all (a command, valid or not). */
export function hasTestAgentMetadata(message: Message | undefined): boolean {
  const metadata = message?.metadata;
  return (
    typeof metadata === 'object' &&
    metadata !== null &&
    Object.hasOwn(metadata, TEST_AGENT_METADATA_KEY)
  );
}

/** A command as read from a message: the command, or why it is none the contract defines. */
export type ReadCommand =
  | { readonly ok: true; readonly command: TestAgentCommand }
  | {
      readonly ok: false;
      readonly command: string;
      readonly taskId: string;
      readonly error: string;
    };

/** Reads a message's command, saying why when it carries none the contract defines. */
export function readTestAgentCommand(message: Message | undefined): ReadCommand {
  const raw = asRecord(message?.metadata?.[TEST_AGENT_METADATA_KEY]);
  const name = typeof raw?.command === 'string' ? raw.command : '';
  const taskId = typeof raw?.taskId === 'string' ? raw.taskId : '';
  const fail = (error: string): ReadCommand => ({ ok: false, command: name, taskId, error });
  if (!hasTestAgentMetadata(message)) {
    return fail(`the message carries no ${TEST_AGENT_METADATA_KEY} metadata`);
  }
  if (raw === undefined) return fail(`${TEST_AGENT_METADATA_KEY} must hold an object`);
  switch (raw.command) {
    case 'hold':
      return { ok: true, command: { command: 'hold' } };
    case 'turn':
    case 'settle':
    case 'state':
    case 'end':
      break;
    default:
      return fail(`unknown command ${JSON.stringify(raw.command ?? null)}`);
  }
  if (taskId === '') return fail(`${name}: the held task's id (taskId) is missing`);
  switch (raw.command) {
    case 'turn':
    case 'settle':
      return { ok: true, command: { command: raw.command, taskId } };
    case 'state':
      return isOneOf(TEST_AGENT_RUNNING_STATES, raw.state)
        ? { ok: true, command: { command: 'state', taskId, state: raw.state } }
        : fail(
            `state: ${stateText(raw.state)} is not one of ${TEST_AGENT_RUNNING_STATES.join(', ')}`,
          );
    case 'end':
      return isOneOf(TEST_AGENT_END_STATES, raw.state)
        ? { ok: true, command: { command: 'end', taskId, state: raw.state } }
        : fail(`end: ${stateText(raw.state)} is not one of ${TEST_AGENT_END_STATES.join(', ')}`);
  }
}

/**
 * The command a message carries, or undefined when it carries none or one the
 * contract does not define (an unknown command, a control command without
 * `taskId`, a missing or unknown state). Extra fields are ignored.
 */
export function testAgentCommandOf(message: Message | undefined): TestAgentCommand | undefined {
  const read = readTestAgentCommand(message);
  return read.ok ? read.command : undefined;
}

/**
 * A message's `metadata` carrying `command`: for a `hold` message, or a
 * control message (sent without `taskId`; the command names the held task).
 */
export function testAgentMetadata(command: TestAgentCommand): Record<string, unknown> {
  return { [TEST_AGENT_METADATA_KEY]: { ...command } };
}

/** The id of the `settle` barrier artifact of the control message `messageId`. */
export function testAgentAckArtifactId(messageId: string): string {
  return `a2a-reminders-conformance-${messageId}`;
}

/** The `settle` barrier artifact of the control message `messageId`: one data part `{"command": "settle"}`. */
export function testAgentSettleArtifact(messageId: string): Artifact {
  return {
    artifactId: testAgentAckArtifactId(messageId),
    name: '',
    description: '',
    parts: [dataPart({ command: 'settle' })],
    metadata: undefined,
    extensions: [],
  };
}

/**
 * The agent's reply to a control message: a message of its own (no task,
 * no context) holding the acknowledgement as its one data part.
 */
export function testAgentReply(ack: TestAgentAck): Message {
  return {
    messageId: crypto.randomUUID(),
    contextId: '',
    taskId: '',
    role: Role.ROLE_AGENT,
    parts: [dataPart(ack)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/**
 * An acknowledgement's data as the kit reads it back (any binding: plain
 * JSON values), or undefined when it is not one the contract defines.
 * Numbers must be whole: gRPC carries them as doubles.
 */
export function parseTestAgentAck(data: unknown): TestAgentAck | undefined {
  const raw = asRecord(data);
  if (raw === undefined || typeof raw.command !== 'string' || typeof raw.taskId !== 'string') {
    return undefined;
  }
  const { command, taskId } = raw;
  if (typeof raw.error === 'string') return { command, taskId, error: raw.error };
  switch (command) {
    case 'turn':
      return parseTurn(taskId, raw);
    case 'settle':
      return typeof raw.artifactId === 'string'
        ? { command, taskId, artifactId: raw.artifactId }
        : undefined;
    case 'state':
      return isOneOf(TEST_AGENT_RUNNING_STATES, raw.state)
        ? { command, taskId, state: raw.state }
        : undefined;
    case 'end':
      return isOneOf(TEST_AGENT_END_STATES, raw.state)
        ? { command, taskId, state: raw.state }
        : undefined;
    default:
      return undefined;
  }
}

/**
 * The acknowledgement a reply holds: the SendMessage result (or the message)
 * answering a control message, its one data part parsed. Undefined when it
 * is a task, or a message that holds no acknowledgement the contract defines.
 */
export function testAgentAckOf(
  reply: SendMessageResult | Message | Task | undefined,
): TestAgentAck | undefined {
  if (reply === undefined || !('messageId' in reply) || reply.parts.length !== 1) return undefined;
  const content = reply.parts[0]?.content;
  return content?.$case === 'data' ? parseTestAgentAck(content.value) : undefined;
}

/** The SDK's TaskState of a contract state name (`WORKING` → TASK_STATE_WORKING). */
export function testAgentTaskState(state: TestAgentRunningState | TestAgentEndState): TaskState {
  return TaskState[`TASK_STATE_${state}`];
}

function parseTurn(taskId: string, raw: Record<string, unknown>): TestAgentAck | undefined {
  if (!isCount(raw.turn) || !Array.isArray(raw.reminders)) return undefined;
  const reminders: TestAgentAckReminder[] = [];
  for (const item of raw.reminders) {
    const r = asRecord(item);
    if (
      typeof r?.id !== 'string' ||
      !isCount(r.turnsRemaining) ||
      typeof r.firstSurfacing !== 'boolean'
    ) {
      return undefined;
    }
    reminders.push({
      id: r.id,
      turnsRemaining: r.turnsRemaining,
      firstSurfacing: r.firstSurfacing,
    });
  }
  return { command: 'turn', taskId, turn: raw.turn, reminders };
}

function dataPart(value: object): Part {
  return {
    content: { $case: 'data', value: { ...value } },
    mediaType: 'application/json',
    filename: '',
    metadata: undefined,
  };
}

function stateText(state: unknown): string {
  return state === undefined ? 'no state' : JSON.stringify(state);
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function isOneOf<T extends string>(values: readonly T[], value: unknown): value is T {
  return typeof value === 'string' && (values as readonly string[]).includes(value);
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}
