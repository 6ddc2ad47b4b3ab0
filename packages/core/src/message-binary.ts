import type {
  CancelTaskReminderResponse,
  InjectTaskReminderRequest,
  InjectTaskReminderResponse,
  ListTaskRemindersResponse,
  ReminderForward,
  ReminderProvenance,
  TaskReminder,
  TaskReminderRecord,
} from '@a2a-reminders/proto';
import {
  CancelTaskReminderResponseSchema,
  InjectTaskReminderRequestSchema,
  InjectTaskReminderResponseSchema,
  ListTaskRemindersResponseSchema,
  ReminderForwardSchema,
  ReminderHopSchema,
  ReminderProvenanceSchema,
  TaskReminderRecordSchema,
  TaskReminderSchema,
} from '@a2a-reminders/proto';
import type { DescMessage, MessageShape } from '@bufbuild/protobuf';
import { toBinary } from '@bufbuild/protobuf';
import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import type { Timestamp } from '@bufbuild/protobuf/wkt';
import { TimestampSchema } from '@bufbuild/protobuf/wkt';

/**
 * The protobuf binary form of the inject request and of the three rpcs'
 * responses, written field by field on one writer that keeps its buffer:
 * what protobuf-es `toBinary` gives (fields by number, implicit-presence
 * defaults omitted), without its fresh writer per call. That writer starts
 * at 128 bytes and reserves three bytes per character of every string, so a
 * 100-character body grew it twice and each call allocated four buffers;
 * here a call allocates no buffer but the bytes it returns. `message-binary.test.ts`
 * holds it to `toBinary` for arbitrary messages. A message this writer does
 * not write (metadata, which is a Struct, or unknown fields) or a value the
 * writer refuses makes it return undefined, and the caller uses `toBinary`.
 */
type MessageBinaryWriter = (writer: BinaryWriter, message: never) => void;

// Keyed by descriptor, not name: another copy of the schema goes to toBinary.
const WRITERS: ReadonlyMap<DescMessage, MessageBinaryWriter> = new Map<
  DescMessage,
  MessageBinaryWriter
>([
  [InjectTaskReminderRequestSchema, injectRequest],
  [InjectTaskReminderResponseSchema, injectResponse],
  [ListTaskRemindersResponseSchema, listResponse],
  [CancelTaskReminderResponseSchema, cancelResponse],
]);

/** Signals a message `toBinary` must write (see above). */
class Unusual extends Error {}
const UNUSUAL = new Unusual();

// One writer for the process: encoding is synchronous, so no two calls share
// it at once, and its buffer, once grown, serves every later call. One that
// grew past KEEP_BYTES (a long list page) is dropped rather than kept for good.
let shared = new BinaryWriter();
const KEEP_BYTES = 64 * 1024;
/** Set while a message is written: a getter that encodes again goes to toBinary. */
let writing = false;

/** `message` in the protobuf binary form, as `toBinary(schema, message)` writes it. */
export function toMessageBinary<Desc extends DescMessage>(
  schema: Desc,
  message: MessageShape<Desc>,
): Uint8Array {
  return writeMessageBinary(schema, message) ?? toBinary(schema, message);
}

/**
 * The bytes this module writes for `message`, or undefined where it leaves
 * the message to `toBinary` (see above). The shared writer is left empty
 * either way.
 */
export function writeMessageBinary<Desc extends DescMessage>(
  schema: Desc,
  message: MessageShape<Desc>,
): Uint8Array | undefined {
  const write = WRITERS.get(schema);
  if (write === undefined || writing) return undefined;
  const writer = shared;
  writing = true;
  try {
    write(writer, message as never);
  } catch {
    // Unusual, or a value the writer refused (toBinary refuses it as well).
    shared = new BinaryWriter();
    return undefined;
  } finally {
    writing = false;
  }
  const bytes = writer.finish();
  if (bytes.length > KEEP_BYTES) shared = new BinaryWriter();
  return bytes;
}

const LEN = WireType.LengthDelimited;
const VARINT = WireType.Varint;

/** A message of `typeName` without unknown fields; anything else is unusual. */
function usual(
  message: { readonly $typeName: string; readonly $unknown?: unknown },
  typeName: string,
): void {
  if (message.$typeName !== typeName || message.$unknown !== undefined) throw UNUSUAL;
}

function injectRequest(w: BinaryWriter, m: InjectTaskReminderRequest): void {
  usual(m, InjectTaskReminderRequestSchema.typeName);
  if (m.tenant !== '') w.tag(1, LEN).string(m.tenant);
  if (m.taskId !== '') w.tag(2, LEN).string(m.taskId);
  if (m.reminder !== undefined) reminder(w, 3, m.reminder);
}

function injectResponse(w: BinaryWriter, m: InjectTaskReminderResponse): void {
  usual(m, InjectTaskReminderResponseSchema.typeName);
  if (m.record !== undefined) record(w, 1, m.record);
  for (const id of m.displacedReminderIds) w.tag(2, LEN).string(id);
  if (m.taskState !== '') w.tag(3, LEN).string(m.taskState);
}

function listResponse(w: BinaryWriter, m: ListTaskRemindersResponse): void {
  usual(m, ListTaskRemindersResponseSchema.typeName);
  for (const r of m.reminders) record(w, 1, r);
  if (m.nextPageToken !== '') w.tag(2, LEN).string(m.nextPageToken);
}

function cancelResponse(w: BinaryWriter, m: CancelTaskReminderResponse): void {
  usual(m, CancelTaskReminderResponseSchema.typeName);
  if (m.record !== undefined) record(w, 1, m.record);
}

// Each nested message's writer takes its field number and writes tag, length and body.
function record(w: BinaryWriter, fieldNo: number, r: TaskReminderRecord): void {
  usual(r, TaskReminderRecordSchema.typeName);
  w.tag(fieldNo, LEN).fork();
  if (r.taskId !== '') w.tag(1, LEN).string(r.taskId);
  if (r.reminder !== undefined) reminder(w, 2, r.reminder);
  if (r.state !== 0) w.tag(3, VARINT).int32(r.state);
  if (r.createTime !== undefined) timestamp(w, 4, r.createTime);
  if (r.endTime !== undefined) timestamp(w, 5, r.endTime);
  if (r.firstTurn !== undefined) w.tag(6, VARINT).int32(r.firstTurn);
  if (r.turnsRemaining !== 0) w.tag(7, VARINT).int32(r.turnsRemaining);
  if (r.displacedBy !== '') w.tag(8, LEN).string(r.displacedBy);
  for (const f of r.forwards) forward(w, 9, f);
  w.join();
}

function reminder(w: BinaryWriter, fieldNo: number, r: TaskReminder): void {
  usual(r, TaskReminderSchema.typeName);
  // A Struct is a JSON object in protobuf-es's messages: toBinary converts it.
  if (r.metadata !== undefined) throw UNUSUAL;
  w.tag(fieldNo, LEN).fork();
  if (r.id !== '') w.tag(1, LEN).string(r.id);
  if (r.body !== '') w.tag(2, LEN).string(r.body);
  if (r.dedupeKey !== '') w.tag(3, LEN).string(r.dedupeKey);
  if (r.ttlTurns !== undefined) w.tag(4, VARINT).int32(r.ttlTurns);
  if (r.roleHint !== '') w.tag(5, LEN).string(r.roleHint);
  if (r.source !== '') w.tag(6, LEN).string(r.source);
  if (r.provenance !== undefined) provenance(w, 8, r.provenance);
  w.join();
}

function provenance(w: BinaryWriter, fieldNo: number, p: ReminderProvenance): void {
  usual(p, ReminderProvenanceSchema.typeName);
  w.tag(fieldNo, LEN).fork();
  for (const hop of p.hops) {
    usual(hop, ReminderHopSchema.typeName);
    w.tag(1, LEN).fork();
    if (hop.taskId !== '') w.tag(1, LEN).string(hop.taskId);
    if (hop.reminderId !== '') w.tag(2, LEN).string(hop.reminderId);
    if (hop.source !== '') w.tag(3, LEN).string(hop.source);
    w.join();
  }
  w.join();
}

function forward(w: BinaryWriter, fieldNo: number, f: ReminderForward): void {
  usual(f, ReminderForwardSchema.typeName);
  w.tag(fieldNo, LEN).fork();
  if (f.taskId !== '') w.tag(1, LEN).string(f.taskId);
  if (f.reminderId !== '') w.tag(2, LEN).string(f.reminderId);
  if (f.state !== 0) w.tag(3, VARINT).int32(f.state);
  if (f.refusal !== '') w.tag(4, LEN).string(f.refusal);
  if (f.updateTime !== undefined) timestamp(w, 5, f.updateTime);
  w.join();
}

function timestamp(w: BinaryWriter, fieldNo: number, t: Timestamp): void {
  usual(t, TimestampSchema.typeName);
  // int64 as strings (BUF_BIGINT_DISABLE): toBinary's zero check is its own.
  if (typeof t.seconds !== 'bigint') throw UNUSUAL;
  w.tag(fieldNo, LEN).fork();
  if (t.seconds !== 0n) w.tag(1, VARINT).int64(t.seconds);
  if (t.nanos !== 0) w.tag(2, VARINT).int32(t.nanos);
  w.join();
}
