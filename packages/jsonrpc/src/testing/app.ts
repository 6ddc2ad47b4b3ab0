import { gzipSync } from 'node:zlib';
import { jsonRpcHandler } from '@a2a-js/sdk/server/express';
import { TASK_REMINDERS_EXTENSION_URI } from '@a2a-reminders/core';
import type { HttpBindingArm } from '@a2a-reminders/test-support';
import { startBindingServer } from '@a2a-reminders/test-support';
import express from 'express';
import { createJsonRpcReminderClient } from '../json-rpc-client.js';
import { jsonRpcFallback } from '../json-rpc-fallback.js';
import type { JsonRpcReminderHandlerOptions } from '../json-rpc-handler.js';
import {
  jsonRpcHandlerWithReminders,
  jsonRpcReminderHandler,
  sdkHandlerOptions,
} from '../json-rpc-handler.js';

type JsonRpcLimits = Pick<JsonRpcReminderHandlerOptions, 'maxBodyBytes' | 'contextBuilder'>;

/** The JSON-RPC binding for test-support's shared HTTP binding tests, mounted as its README does. */
export const jsonRpcArm: HttpBindingArm<JsonRpcLimits> = {
  name: 'JSON-RPC',
  path: '/a2a/jsonrpc',
  handlers: (options) => [jsonRpcHandlerWithReminders(options)],
  fallback: jsonRpcFallback,
  createClient: createJsonRpcReminderClient,
};

/** The same, as two middlewares: ours, then the SDK's jsonRpcHandler. */
export const jsonRpcTwoHandlersArm: HttpBindingArm<JsonRpcLimits> = {
  ...jsonRpcArm,
  name: 'JSON-RPC (ours, then jsonRpcHandler)',
  handlers: (options) => [
    jsonRpcReminderHandler(options),
    jsonRpcHandler(sdkHandlerOptions(options)),
  ],
};

/** The JSON-RPC binding at /a2a/jsonrpc, mounted as its README does, with a fake service. */
export function startFakeServer(
  overrides: JsonRpcLimits = {},
  options: { jsonFirst?: boolean; jsonFirstLimit?: string } = {},
) {
  const before =
    options.jsonFirst === true ? [express.json({ limit: options.jsonFirstLimit ?? '100kb' })] : [];
  return startBindingServer(jsonRpcArm, { service: 'fake', overrides, before });
}

/** A JSON-RPC request object of `method` with `params`, as text. */
export const rpcBody = (method: string, params: unknown, id: unknown = 1): string =>
  JSON.stringify({ jsonrpc: '2.0', id, method, params });

/** Raw JSON-RPC POST with the headers a 1.0 client with the extension sends; its answer as JSON. */
export async function post(
  endpoint: string,
  body: RequestBody,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; json: Record<string, unknown> }> {
  const { status, headers: answered, text } = await postText(endpoint, body, headers);
  return { status, headers: answered, json: JSON.parse(text) as Record<string, unknown> };
}

/** The headers a 1.0 client with the extension sends with a JSON-RPC call. */
const CALL_HEADERS = {
  'Content-Type': 'application/json',
  'A2A-Version': '1.0',
  'A2A-Extensions': TASK_REMINDERS_EXTENSION_URI,
} as const;

/** A body as text, as bytes, or streamed (then sent chunked, with no Content-Length). */
type RequestBody = string | Uint8Array | ReadableStream<Uint8Array>;

/** The same POST, its answer as text (a notification's has none, W11). */
export async function postText(
  endpoint: string,
  body: RequestBody,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; text: string }> {
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: { ...CALL_HEADERS, ...headers },
    body,
    // Required for a streamed body, and ignored for any other.
    duplex: 'half',
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/** A JSON-RPC POST whose body streams in 512-byte chunks, so it carries no Content-Length. */
export function postChunked(endpoint: string, body: string): ReturnType<typeof post> {
  const bytes = new TextEncoder().encode(body);
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < bytes.length; i += 512) controller.enqueue(bytes.slice(i, i + 512));
      controller.close();
    },
  });
  return post(endpoint, stream);
}

/** A JSON-RPC POST of `body` gzip-compressed: its Content-Length counts the compressed bytes. */
export function postGzipped(endpoint: string, body: string): ReturnType<typeof post> {
  return post(endpoint, gzipSync(body), { 'Content-Encoding': 'gzip' });
}
