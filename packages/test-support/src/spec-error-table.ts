import { readFileSync } from 'node:fs';
import type { ReminderErrorCode } from '@a2a-reminders/core';
import { isReminderErrorCode } from '@a2a-reminders/core';

/** One row of the spec's R39 error table (docs/extension-spec.md). */
export interface SpecErrorRow {
  readonly code: ReminderErrorCode;
  readonly jsonRpcCode: number;
  /** The HTTP status of the JSON-RPC response: the one the cell names, else 200 (R39). */
  readonly jsonRpcHttpStatus: number;
  /** The gRPC status name (`NOT_FOUND`), also the REST body's `status` (R39). */
  readonly grpcStatus: string;
  /** The REST response's HTTP status. */
  readonly httpStatus: number;
}

/** The spec, read from the repository (src/ and dist/ sit at the same depth). */
export const SPEC_URL = new URL('../../../docs/extension-spec.md', import.meta.url);

/**
 * Parses the R39 table out of the spec, so the bindings' error-table tests
 * check the implementation against the spec instead of restating its table.
 * Throws on any row it cannot read, so a reformatted spec fails loudly.
 */
export function specErrorTable(
  spec: string = readFileSync(SPEC_URL, 'utf8'),
): ReadonlyMap<ReminderErrorCode, SpecErrorRow> {
  const start = spec.indexOf('**R39.');
  if (start < 0) throw new Error('the spec has no R39');
  const lines = spec.slice(start).split('\n');
  const header = lines.findIndex((l) => l.startsWith('|'));
  const cells = (line: string) =>
    line
      .slice(1, line.lastIndexOf('|'))
      .split('|')
      .map((c) => c.trim());
  const names = cells(lines[header] ?? '');
  if (names.join(',') !== 'code,JSON-RPC,gRPC,HTTP') {
    throw new Error(`R39 table header changed: ${names.join(' | ')}`);
  }
  const rows = new Map<ReminderErrorCode, SpecErrorRow>();
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break;
    const [code, jsonRpc, grpc, http] = cells(line);
    const c = /^`([A-Z_]+)`$/.exec(code ?? '')?.[1];
    const j = /^(-\d+)(?: \(HTTP (\d{3})\))?$/.exec(jsonRpc ?? '');
    const g = /^`([A-Z_]+)`$/.exec(grpc ?? '')?.[1];
    const h = /^(\d{3})$/.exec(http ?? '')?.[1];
    if (c === undefined || !isReminderErrorCode(c) || j === null || g === undefined || !h) {
      throw new Error(`unreadable R39 row: ${line}`);
    }
    rows.set(c, {
      code: c,
      jsonRpcCode: Number(j[1]),
      jsonRpcHttpStatus: j[2] === undefined ? 200 : Number(j[2]),
      grpcStatus: g,
      httpStatus: Number(h),
    });
  }
  return rows;
}

/** The R39 row of `code`; throws if the spec has none. */
export function specErrorRow(code: ReminderErrorCode): SpecErrorRow {
  const row = specErrorTable().get(code);
  if (row === undefined) throw new Error(`the spec's R39 table has no row for ${code}`);
  return row;
}
