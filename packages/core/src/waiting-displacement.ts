import type { TaskReminderEvent } from '@a2a-reminders/proto';
import type { Timestamp } from '@bufbuild/protobuf/wkt';
import { TimestampSchema } from '@bufbuild/protobuf/wkt';
import { displacedEventAt } from './events.js';

/**
 * R57: a displacement event while it waits for its batch, as its fields
 * alone: one object where the event is five (the event, its Timestamp, the
 * Timestamp's bigint, the oneof and the `displaced` body). A task hit
 * several times a second keeps up to ten seconds of them (R67), long enough
 * for every one to reach the heap's old generation; the collector then
 * copies, marks and frees a fifth of the objects. {@link eventOfWaiting}
 * rebuilds the event field for field; `waiting-displacement.test.ts` fails
 * when a schema gains a field these two do not carry.
 */
export interface WaitingDisplacement {
  readonly reminderId: string;
  readonly dedupeKey: string;
  readonly seconds: number;
  readonly nanos: number;
  readonly displacedBy: string;
}

/** An event as it waits: a displacement of the usual shape compacted, any other event as it is. */
export type WaitingEvent = WaitingDisplacement | TaskReminderEvent;

/**
 * The event as it waits. Only a `displaced` event that its fields rebuild
 * exactly is compacted: none with unknown fields (the service builds none,
 * but an event is a message anyone can build) and none whose seconds a
 * number cannot hold.
 */
export function waitingEvent(event: TaskReminderEvent): WaitingEvent {
  const time = event.eventTime;
  if (event.event.case !== 'displaced' || time === undefined) return event;
  const body = event.event.value;
  if ('$unknown' in event || '$unknown' in time || '$unknown' in body) return event;
  const seconds = Number(time.seconds);
  if (!Number.isSafeInteger(seconds)) return event;
  return {
    reminderId: event.reminderId,
    dedupeKey: event.dedupeKey,
    seconds,
    nanos: time.nanos,
    displacedBy: body.displacedBy,
  };
}

/** The event a {@link waitingEvent} holds, as it was given. */
export function eventOfWaiting(waiting: WaitingEvent): TaskReminderEvent {
  if ('$typeName' in waiting) return waiting;
  const eventTime: Timestamp = {
    $typeName: TimestampSchema.typeName,
    seconds: BigInt(waiting.seconds),
    nanos: waiting.nanos,
  };
  return displacedEventAt(waiting.reminderId, waiting.dedupeKey, eventTime, waiting.displacedBy);
}
