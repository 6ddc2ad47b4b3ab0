import type { FieldViolation } from '@a2a-reminders/core';
import type { ReadRequest } from '@a2a-reminders/core/protocol';
import { isJsonObject, readRequestJson } from '@a2a-reminders/core/protocol';
import type { ReminderRpc } from '@a2a-reminders/proto';
import { ScalarType } from '@bufbuild/protobuf';
import type { Request } from 'express';

/** A REST call's request: the tenant the path names, and the request read from path and body. */
export interface RestRequest {
  /** The path's tenant, which the call context takes, as in the SDK's restHandler (W2). */
  readonly tenant: string | undefined;
  /** Reads the request; the binding calls it once the caller is resolved (R45). */
  readonly read: () => ReadRequest;
}

/**
 * The request of a REST call from its raw (percent-encoded) path variables
 * and its body, or for a body-less rule its query fields. Nothing here
 * refuses the call: a path segment that does not decode, a body value that
 * does not read and a body value that contradicts the path (R56) are
 * violations the service reports after authentication and activation (R45).
 */
export function restRequest(
  rpc: ReminderRpc,
  rawPathValues: Readonly<Record<string, string>>,
  fields: unknown,
): RestRequest {
  const path = decodePathValues(rawPathValues);
  return {
    tenant: path.values.tenant,
    read: () => {
      const bound = withPathValues(rpc, path.values, fields);
      const read = readRequestJson(rpc.method.input, bound.json);
      return {
        request: read.request,
        violations: [...path.violations, ...bound.violations, ...read.violations],
      };
    },
  };
}

/** The path variables that decode, and a violation for each that does not (R8, R45). */
function decodePathValues(raw: Readonly<Record<string, string>>): {
  values: Record<string, string>;
  violations: FieldViolation[];
} {
  const values: Record<string, string> = {};
  const violations: FieldViolation[] = [];
  for (const [field, value] of Object.entries(raw)) {
    try {
      values[field] = decodeURIComponent(value);
    } catch {
      violations.push({ field, description: 'is not a valid percent-encoded path segment' });
    }
  }
  return { values, violations };
}

/**
 * Path variables fill their fields (W2). The path's tenant wins over the
 * body's, as in the SDK. Any other field the path binds (`taskId`, and
 * `reminderId` of a cancel) that the body or query also gives, under its
 * ProtoJSON or its proto name, must hold the path's value, `null` or `""`:
 * a different one is a violation on that field (R56), never silently replaced.
 */
function withPathValues(
  rpc: ReminderRpc,
  values: Readonly<Record<string, string>>,
  fields: unknown,
): { json: unknown; violations: FieldViolation[] } {
  // A body that is no object is reported as such by the reader (R45).
  if (!isJsonObject(fields)) return { json: fields, violations: [] };
  const json: Record<string, unknown> = { ...fields };
  const violations: FieldViolation[] = [];
  for (const [name, value] of Object.entries(values)) {
    const protoName = rpc.method.input.fields.find((f) => f.jsonName === name)?.name ?? name;
    let contradicted = false;
    for (const key of new Set([name, protoName])) {
      if (!Object.hasOwn(json, key)) continue;
      const given = json[key];
      delete json[key];
      // `null` and `""` are unset in ProtoJSON (a client writing defaults sends `""`).
      contradicted ||= name !== 'tenant' && given !== null && given !== '' && given !== value;
    }
    if (contradicted) {
      violations.push({
        field: name,
        description: 'must be the value in the URL path, or left out',
      });
    }
    json[name] = value;
  }
  return { json, violations };
}

/**
 * Query parameters of a body-less call fill the request's top-level scalar
 * fields (google.api.http rules); others are ignored, as the SDK ignores
 * them. Every query value is text, so a bool field's `true`/`false` become
 * JSON booleans (R49 `liveOnly`); numbers stay decimal strings, which
 * ProtoJSON reads. A parameter given twice, or under both its names, stays a
 * list, which the reader refuses on that field rather than silently picking one.
 */
export function queryFields(rpc: ReminderRpc, query: Request['query']): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of rpc.method.input.fields) {
    if (field.fieldKind !== 'scalar' && field.fieldKind !== 'enum') continue;
    // Both spellings at once (`taskId` and `task_id`) count as the parameter given twice.
    const spellings = [...new Set([field.jsonName, field.name])].flatMap((key) => {
      const given = query[key];
      return given === undefined ? [] : Array.isArray(given) ? given : [given];
    });
    const value = spellings.length > 1 ? spellings : spellings[0];
    if (Array.isArray(value)) out[field.jsonName] = value;
    if (typeof value !== 'string') continue;
    const isBool = field.fieldKind === 'scalar' && field.scalar === ScalarType.BOOL;
    out[field.jsonName] =
      isBool && (value === 'true' || value === 'false') ? value === 'true' : value;
  }
  return out;
}
