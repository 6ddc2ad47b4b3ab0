import type {
  CancelTaskReminderRequest,
  InjectTaskReminderRequest,
  ListTaskRemindersRequest,
} from '@a2a-reminders/proto';
import {
  CancelTaskReminderRequestSchema,
  InjectTaskReminderRequestSchema,
  ListTaskRemindersRequestSchema,
} from '@a2a-reminders/proto';
import type { DescMessage, MessageShape } from '@bufbuild/protobuf';
import type { FieldViolation } from './errors.js';
import { loneSurrogateViolations } from './json-safety.js';
import type { ReminderLimits } from './limits.js';
import { mergeViolations } from './read-request.js';
import { cancelViolations, injectViolations, listViolations } from './validation.js';

/**
 * R8: what the binding could not read, then the field rules of what it read
 * (R9 and the rest) and R43's lone surrogates in every string field, all at
 * once.
 */
function allViolations<Desc extends DescMessage>(
  schema: Desc,
  request: MessageShape<Desc>,
  read: readonly FieldViolation[],
  rules: readonly FieldViolation[],
): FieldViolation[] {
  return mergeViolations(schema, read, [...rules, ...loneSurrogateViolations(schema, request)]);
}

/**
 * Every violation of an inject. R44: what passes them is known to serialize
 * on every binding (strings well-formed, metadata finite, bounded JSON), so
 * no record is serialized here to find out: that would cost more than the
 * rest of an inject for large metadata. record-round-trip.test.ts holds the
 * invariant for every stored record.
 */
export function injectRequestViolations(
  request: InjectTaskReminderRequest,
  limits: ReminderLimits,
  read: readonly FieldViolation[],
): FieldViolation[] {
  return allViolations(
    InjectTaskReminderRequestSchema,
    request,
    read,
    injectViolations(request, limits),
  );
}

export function listRequestViolations(
  request: ListTaskRemindersRequest,
  read: readonly FieldViolation[],
): FieldViolation[] {
  return allViolations(ListTaskRemindersRequestSchema, request, read, listViolations(request));
}

export function cancelRequestViolations(
  request: CancelTaskReminderRequest,
  read: readonly FieldViolation[],
): FieldViolation[] {
  return allViolations(CancelTaskReminderRequestSchema, request, read, cancelViolations(request));
}
