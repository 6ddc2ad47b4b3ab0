import { HTTP_EXTENSION_HEADER } from '@a2a-js/sdk';
import type { JsonValue } from '@bufbuild/protobuf';
import { ReminderError } from './errors.js';
import { toResponseJson } from './protojson.js';
import type { ReminderCall } from './reminder-call.js';
import { runReminderCall } from './reminder-call.js';
import { retryAfterOf } from './wire-errors.js';

/**
 * What the HTTP bindings write to: the part of node's `ServerResponse` they
 * use (express's `Response` is one), named structurally so that core needs no
 * web framework.
 */
export interface JsonResponse {
  readonly headersSent: boolean;
  readonly writableEnded: boolean;
  statusCode: number;
  getHeader(name: string): number | string | readonly string[] | undefined;
  setHeader(name: string, value: number | string | readonly string[]): unknown;
  end(chunk?: string): unknown;
}

const UTF8 = '; charset=utf-8';

/**
 * Sends `body` as JSON with `status`, in the media type the binding set
 * (default `application/json`) with `charset=utf-8`, as express's `res.json`
 * labels the SDK's answers (the bindings set no other parameter). Written
 * straight to node's response: express's `send` hashed every body for an
 * ETag and checked request freshness, some 14 µs of server CPU per answer
 * (bench README), and reminder answers are not cacheable; express's `json`
 * and `etag` settings do not apply. A response whose headers are already out
 * (a failure after the reply started) can only be ended, never given a
 * second status.
 */
export function sendJson(res: JsonResponse, status: number, body: unknown): void {
  if (res.headersSent) {
    if (!res.writableEnded) res.end();
    return;
  }
  const text = JSON.stringify(body);
  const type = res.getHeader('Content-Type');
  res.statusCode = status;
  res.setHeader(
    'Content-Type',
    typeof type === 'string' ? `${type.split(';', 1)[0] ?? ''}${UTF8}` : `application/json${UTF8}`,
  );
  res.setHeader('Content-Length', Buffer.byteLength(text));
  // Node leaves the body out of an answer to HEAD itself.
  res.end(text);
}

/** Sends `status` with an empty body (a JSON-RPC notification's answer, W11). */
export function sendEmpty(res: JsonResponse, status: number): void {
  if (res.headersSent) {
    if (!res.writableEnded) res.end();
    return;
  }
  res.statusCode = status;
  res.end();
}

/** Echoes the extensions a call activated in `A2A-Extensions`, as the SDK's HTTP handlers do. */
export function echoExtensions(res: JsonResponse, activated: readonly string[] | undefined): void {
  if (activated !== undefined && !res.headersSent) {
    // One value is one header line either way; a string skips the array's copy and checks.
    res.setHeader(
      HTTP_EXTENSION_HEADER,
      activated.length === 1 ? (activated[0] ?? '') : Array.from(activated),
    );
  }
}

/** A reminder call over HTTP, ended: the ProtoJSON result, or the error to send in the binding's shape. */
export type HttpCallOutcome =
  | { readonly ok: true; readonly result: JsonValue }
  | { readonly ok: false; readonly error: ReminderError };

/**
 * Runs a reminder call for an HTTP binding and echoes the activated
 * extensions on `res`; the binding only wraps the outcome in its envelope.
 * A server fault is logged here with its cause (`label` names the binding),
 * while the caller gets INTERNAL's fixed message (W13).
 */
export async function runHttpReminderCall(
  call: ReminderCall,
  res: JsonResponse,
  label: string,
): Promise<HttpCallOutcome> {
  const outcome = await runReminderCall(call);
  let ended: HttpCallOutcome;
  if (outcome.ok) {
    try {
      ended = { ok: true, result: toResponseJson(call.rpc.method.output, outcome.response) };
    } catch (thrown) {
      ended = { ok: false, error: ReminderError.from(thrown) };
    }
  } else {
    ended = outcome;
  }
  if (!ended.ok && ended.error.code === 'INTERNAL') {
    console.error(`${label} ${call.rpc.name} failed:`, ended.error.cause ?? ended.error);
  }
  const retryAfter = ended.ok ? undefined : retryAfterOf(ended.error.code);
  if (retryAfter !== undefined) res.setHeader('Retry-After', retryAfter);
  echoExtensions(res, outcome.activatedExtensions);
  return ended;
}
