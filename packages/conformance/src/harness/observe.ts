import { ReminderError } from '@a2a-reminders/core';
import type { TaskReminderEvent, TaskReminderRecord } from '@a2a-reminders/proto';
import { TaskReminderEventSchema, TaskReminderRecordSchema } from '@a2a-reminders/proto';
import type { JsonObject, JsonValue } from '@bufbuild/protobuf';
import { toJson } from '@bufbuild/protobuf';
import { expect } from 'vitest';
import { rejection } from './wait.js';

/** An event as `kind:reminderId {fields}`, without its time: what equivalence compares. */
export function eventSummary(event: TaskReminderEvent): string {
  const json = toJson(TaskReminderEventSchema, event) as JsonObject;
  const kind = event.event.case ?? 'unknown';
  const detail = JSON.stringify(json[kind] ?? {});
  return `${kind}:${event.reminderId}${event.dedupeKey === '' ? '' : `#${event.dedupeKey}`} ${detail}`;
}

/** `kind:reminderId` of each event. */
export function kinds(events: readonly TaskReminderEvent[]): string[] {
  return events.map((e) => `${e.event.case ?? 'unknown'}:${e.reminderId}`);
}

/** A record as ProtoJSON with its timestamps replaced by whether they are set. */
export function recordSummary(record: TaskReminderRecord | undefined): JsonValue {
  if (record === undefined) return null;
  const json = toJson(TaskReminderRecordSchema, record) as JsonObject;
  const { createTime, endTime, ...rest } = json;
  return { ...rest, hasCreateTime: createTime !== undefined, hasEndTime: endTime !== undefined };
}

/** The typed error a call rejects with, asserting its code. */
export async function reminderError(
  call: Promise<unknown>,
  code: ReminderError['code'],
): Promise<ReminderError> {
  const error = await rejection(call);
  expect(error).toBeInstanceOf(ReminderError);
  const typed = error as ReminderError;
  expect({ code: typed.code, message: typed.message }).toMatchObject({ code });
  return typed;
}

/** What a caller can observe of a ReminderError, for comparisons across arms. */
export function errorSummary(error: unknown): JsonValue {
  if (!(error instanceof ReminderError)) return { notAReminderError: String(error) };
  return {
    code: error.code,
    message: error.message,
    metadata: { ...error.metadata },
    fieldViolations: error.fieldViolations.map((v) => ({ ...v })),
  };
}
