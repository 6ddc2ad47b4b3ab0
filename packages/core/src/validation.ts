import type {
  CancelTaskReminderRequest,
  InjectTaskReminderRequest,
  ListTaskRemindersRequest,
  ReminderProvenance,
  TaskReminder,
} from '@a2a-reminders/proto';
import type { FieldViolation } from './errors.js';
import { ReminderError } from './errors.js';
import { metadataViolations } from './json-safety.js';
import type { ReminderLimits } from './limits.js';
import { pageViolations } from './list-page.js';
import { refusedCharacters, type TextFieldKind } from './text-rules.js';

/** R9: reminder ids are 1–128 characters of [A-Za-z0-9._:-]. */
export const REMINDER_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;
export const MAX_DEDUPE_KEY_CHARS = 256;
export const MAX_ROLE_HINT_CHARS = 32;
export const MAX_SOURCE_CHARS = 256;

/** R46: a violation for each class of refused character in a string field. */
function textViolations(
  field: string,
  text: string,
  kind: TextFieldKind,
  violations: FieldViolation[],
): void {
  for (const description of refusedCharacters(text, kind)) violations.push({ field, description });
}
const encoder = new TextEncoder();

function requireTaskId(taskId: string, violations: FieldViolation[]): void {
  if (taskId.trim() === '') violations.push({ field: 'taskId', description: 'is required' });
  else textViolations('taskId', taskId, 'name', violations);
}

/** R46: the optional tenant is a name too (it may reach logs and error text). */
function tenantViolations(tenant: string, violations: FieldViolation[]): void {
  textViolations('tenant', tenant, 'name', violations);
}

/** Every violation of an InjectTaskReminderRequest, all at once (R8, R9). */
export function injectViolations(
  request: InjectTaskReminderRequest,
  limits: ReminderLimits,
): FieldViolation[] {
  const violations: FieldViolation[] = [];
  tenantViolations(request.tenant, violations);
  requireTaskId(request.taskId, violations);
  const r = request.reminder;
  if (r === undefined) {
    violations.push({ field: 'reminder', description: 'is required' });
    return violations;
  }
  reminderViolations(r, limits, violations);
  return violations;
}

function reminderViolations(
  r: TaskReminder,
  limits: ReminderLimits,
  violations: FieldViolation[],
): void {
  const v = (field: string, description: string) =>
    violations.push({ field: `reminder.${field}`, description });
  if (r.id === '') v('id', 'is required');
  else if (!REMINDER_ID_PATTERN.test(r.id)) {
    v('id', 'must be 1 to 128 characters of [A-Za-z0-9._:-]');
  }
  if (r.body.trim() === '') v('body', 'is required and must not be blank');
  else {
    if (r.body.length > limits.maxBodyChars) {
      v('body', `must be at most ${limits.maxBodyChars} characters`);
    }
    textViolations('reminder.body', r.body, 'text', violations);
  }
  if (r.dedupeKey.length > MAX_DEDUPE_KEY_CHARS) {
    v('dedupeKey', `must be at most ${MAX_DEDUPE_KEY_CHARS} characters`);
  }
  textViolations('reminder.dedupeKey', r.dedupeKey, 'name', violations);
  if (
    r.ttlTurns !== undefined &&
    !(Number.isInteger(r.ttlTurns) && r.ttlTurns >= 1 && r.ttlTurns <= limits.maxTtlTurns)
  ) {
    v('ttlTurns', `must be an integer from 1 to ${limits.maxTtlTurns}`);
  }
  if (r.roleHint.length > MAX_ROLE_HINT_CHARS) {
    v('roleHint', `must be at most ${MAX_ROLE_HINT_CHARS} characters`);
  }
  textViolations('reminder.roleHint', r.roleHint, 'name', violations);
  if (r.source.length > MAX_SOURCE_CHARS) {
    v('source', `must be at most ${MAX_SOURCE_CHARS} characters`);
  }
  textViolations('reminder.source', r.source, 'name', violations);
  if (r.provenance !== undefined) provenanceViolations(r.provenance, limits, violations);
  if (r.metadata !== undefined) {
    // R41–R43: JSON every binding carries unchanged; only then is its size meaningful.
    const unsafe = metadataViolations(r.metadata, 'reminder.metadata');
    violations.push(...unsafe);
    const bytes = unsafe.length > 0 ? 0 : encoder.encode(JSON.stringify(r.metadata)).length;
    if (bytes > limits.maxMetadataBytes) {
      v('metadata', `must be at most ${limits.maxMetadataBytes} bytes as JSON`);
    }
  }
}

/** Longest task id a provenance hop may name (R59); A2A task ids are UUIDs. */
export const MAX_HOP_TASK_ID_CHARS = 256;

/**
 * R59: provenance is validated like every other field, so that what a task
 * stores of it is bounded: at least one hop (an empty provenance says
 * nothing), each naming a task and a reminder id of R9's form, its source
 * within R9's bound. How many hops is R60's own check: hops past the limit
 * are not looked at one by one, so a long list cannot make a refusal
 * longer than any transport carries.
 */
function provenanceViolations(
  provenance: ReminderProvenance,
  limits: ReminderLimits,
  violations: FieldViolation[],
): void {
  if (provenance.hops.length === 0) {
    violations.push({
      field: 'reminder.provenance.hops',
      description: 'must hold at least one hop',
    });
  }
  if (provenance.hops.length > limits.maxForwardHops) return;
  provenance.hops.forEach((hop, i) => {
    const at = `reminder.provenance.hops[${i}]`;
    if (hop.taskId.trim() === '')
      violations.push({ field: `${at}.taskId`, description: 'is required' });
    else if (hop.taskId.length > MAX_HOP_TASK_ID_CHARS) {
      violations.push({
        field: `${at}.taskId`,
        description: `must be at most ${MAX_HOP_TASK_ID_CHARS} characters`,
      });
    }
    textViolations(`${at}.taskId`, hop.taskId, 'name', violations);
    if (!REMINDER_ID_PATTERN.test(hop.reminderId)) {
      violations.push({
        field: `${at}.reminderId`,
        description: 'must be 1 to 128 characters of [A-Za-z0-9._:-]',
      });
    }
    if (hop.source.length > MAX_SOURCE_CHARS) {
      violations.push({
        field: `${at}.source`,
        description: `must be at most ${MAX_SOURCE_CHARS} characters`,
      });
    }
    textViolations(`${at}.source`, hop.source, 'name', violations);
  });
}

/**
 * R60, R61: a forwarded reminder past the server's hop limit, or one whose
 * provenance already names the task it is sent to (a cycle of agents), is
 * refused with a code of its own. Checked once the request is valid (R8) and
 * before the task is looked up (R5): both are facts of the request alone.
 */
export function throwIfForwardRefused(
  request: InjectTaskReminderRequest,
  limits: ReminderLimits,
): void {
  const hops = request.reminder?.provenance?.hops;
  if (hops === undefined) return;
  if (hops.length > limits.maxForwardHops) {
    throw new ReminderError(
      'FORWARD_HOP_LIMIT_EXCEEDED',
      `reminder ${request.reminder?.id} was forwarded ${hops.length} times; this server takes at most ${limits.maxForwardHops}`,
      {
        metadata: {
          taskId: request.taskId,
          hops: String(hops.length),
          limit: String(limits.maxForwardHops),
        },
        fieldViolations: [
          {
            field: 'reminder.provenance.hops',
            description: `must hold at most ${limits.maxForwardHops} hops (maxForwardHops)`,
          },
        ],
      },
    );
  }
  const loop = hops.findIndex((hop) => hop.taskId === request.taskId);
  if (loop >= 0) {
    throw new ReminderError(
      'FORWARD_LOOP',
      `reminder ${request.reminder?.id} was already forwarded from task ${request.taskId}`,
      {
        metadata: { taskId: request.taskId, hop: String(loop) },
        fieldViolations: [
          {
            field: `reminder.provenance.hops[${loop}].taskId`,
            description: 'names the task the reminder is sent to',
          },
        ],
      },
    );
  }
}

export function listViolations(request: ListTaskRemindersRequest): FieldViolation[] {
  const violations: FieldViolation[] = [];
  tenantViolations(request.tenant, violations);
  requireTaskId(request.taskId, violations);
  // R49: paging fields, reported with the others (R8).
  violations.push(...pageViolations(request));
  return violations;
}

export function cancelViolations(request: CancelTaskReminderRequest): FieldViolation[] {
  const violations: FieldViolation[] = [];
  tenantViolations(request.tenant, violations);
  requireTaskId(request.taskId, violations);
  if (request.reminderId === '') {
    violations.push({ field: 'reminderId', description: 'is required' });
  } else textViolations('reminderId', request.reminderId, 'name', violations);
  return violations;
}

/** Throws INVALID_ARGUMENT carrying every violation, if there is any (R8). */
export function throwIfInvalid(violations: readonly FieldViolation[]): void {
  if (violations.length > 0) throw ReminderError.invalidArgument(violations);
}
