/**
 * The part of node's `IncomingMessage` the reader uses (express's `Request` is
 * one), named structurally so that core needs no HTTP code.
 */
export interface JsonBodySource {
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly socket: { readonly readable: boolean } | null;
  /** The whole message has arrived (node's parser). */
  readonly complete: boolean;
  readonly readable: boolean;
  readonly readableEnded: boolean;
  /** Set when an earlier middleware called `setEncoding`. */
  readonly readableEncoding: string | null;
  /** An upgrade request (set by node's parser, not in its types). */
  readonly upgrade?: boolean;
  body?: unknown;
  on(event: 'data', listener: (chunk: Buffer) => void): unknown;
  on(event: 'end' | 'error' | 'aborted' | 'close', listener: () => void): unknown;
  off(event: 'data', listener: (chunk: Buffer) => void): unknown;
  off(event: 'end' | 'error' | 'aborted' | 'close', listener: () => void): unknown;
}

/** Express-style middleware over node's request. */
export type BodyMiddleware<Req extends JsonBodySource, Res> = (
  req: Req,
  res: Res,
  next: (error?: unknown) => void,
) => void;

/** The options of body-parser's `json()` that {@link jsonBodyReader} reads by. */
export interface JsonBodyOptions {
  /** Largest body read, in bytes (W12). */
  readonly limit: number;
  /** The media types read (`application/json`, …). */
  readonly type: readonly string[];
  /** Only an object or an array at the top. */
  readonly strict: boolean;
}

/**
 * Reads a JSON request body into `req.body`, for the bodies reminder calls are
 * sent with: a Content-Length, no content coding, one of `options.type` with no
 * parameter but `charset=utf-8`, within the limit. Those are read straight
 * into one string, with body-parser's outcome: the same body, or an error with
 * the same status and `type` (W3, W12; its message may differ, which the
 * bindings never show). Every other body (chunked, compressed, another
 * charset, over the limit, a parameter it does not know) goes untouched to
 * `json(options)`, body-parser's `json` (express's `express.json`), made from
 * the same options so the two cannot drift. Why: body-parser's generality
 * (type and charset parsing, an iconv decoder, a stream reader with its own
 * state) cost 7 to 14 µs per request here (bench README, The request body).
 */
export function jsonBodyReader<Req extends JsonBodySource, Res>(
  options: JsonBodyOptions,
  json: (options: { limit: number; type: string[]; strict: boolean }) => BodyMiddleware<Req, Res>,
): BodyMiddleware<Req, Res> {
  const fallback = json({ limit: options.limit, type: [...options.type], strict: options.strict });
  const mediaType = mediaTypePattern(options.type);
  return (req, res, next) => {
    const length = plainLength(req, options.limit, mediaType);
    if (length === undefined) {
      fallback(req, res, next);
      return;
    }
    readPlainBody(req, length, options.limit, options.strict, next);
  };
}

/**
 * `type` or `type;charset=utf-8` (spaces after the `;` allowed), any case: forms that
 * body-parser's content-type parsing reads as `type` in UTF-8. Anything else falls back.
 */
function mediaTypePattern(types: readonly string[]): RegExp {
  const escaped = types.map((type) => type.toLowerCase().replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'));
  return new RegExp(`^(?:${escaped.join('|')})(?:; *charset=utf-8)?$`);
}

/** The body's length when the fast path reads it; undefined for the fallback. */
function plainLength(req: JsonBodySource, limit: number, mediaType: RegExp): number | undefined {
  const headers = req.headers;
  if (headers['transfer-encoding'] !== undefined) return undefined;
  const encoding = headers['content-encoding'];
  if (
    encoding !== undefined &&
    (typeof encoding !== 'string' || encoding.toLowerCase() !== 'identity')
  ) {
    return undefined;
  }
  const contentType = headers['content-type'];
  if (typeof contentType !== 'string' || !mediaType.test(contentType.toLowerCase())) {
    return undefined;
  }
  const declared = headers['content-length'];
  if (typeof declared !== 'string' || !/^\d{1,15}$/.test(declared)) return undefined;
  const length = Number(declared);
  if (length > limit) return undefined;
  // A body already read or being read as text, an upgrade, or a socket that will send
  // nothing more: body-parser's to judge (its on-finished check, raw-body's encoding check).
  if (
    req.upgrade === true ||
    req.readableEnded ||
    req.readableEncoding !== null ||
    !req.socket?.readable ||
    (req.complete && !req.readable)
  ) {
    return undefined;
  }
  return length;
}

/**
 * Reads `length` bytes, counted as they come, as raw-body does: past the limit is 413
 * and a count other than `length` 400, answered once the body has ended, as
 * body-parser answers after draining it. Every way the stream stops calls `next` once.
 */
function readPlainBody(
  req: JsonBodySource,
  length: number,
  limit: number,
  strict: boolean,
  next: (error?: unknown) => void,
): void {
  const chunks: Buffer[] = [];
  let received = 0;
  let done = false;
  const finish = (error?: unknown) => {
    if (done) return;
    done = true;
    req.off('data', onData);
    req.off('end', onEnd);
    req.off('error', onAborted);
    req.off('aborted', onAborted);
    req.off('close', onAborted);
    next(error);
  };
  const onData = (chunk: Buffer) => {
    received += chunk.length;
    if (received <= limit) chunks.push(chunk);
  };
  const onEnd = () => {
    if (received > limit) {
      finish(clientFailure(413, 'request entity too large', 'entity.too.large'));
      return;
    }
    if (received !== length) {
      finish(
        clientFailure(400, 'request size did not match content length', 'request.size.invalid'),
      );
      return;
    }
    const bytes = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
    let text = bytes.toString('utf8');
    // body-parser's decoder drops a byte order mark.
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    try {
      req.body = parseJsonText(text, strict);
    } catch (error) {
      finish(parseFailure(error, text));
      return;
    }
    finish();
  };
  // 'end' comes before 'close' on a body read to its end; anything else stopped it. (raw-body
  // would never call back on a bare 'close'; answering 400 keeps no request hanging.)
  const onAborted = () => finish(clientFailure(400, 'request aborted', 'request.aborted'));
  req.on('data', onData);
  req.on('end', onEnd);
  req.on('error', onAborted);
  req.on('aborted', onAborted);
  req.on('close', onAborted);
}

function parseJsonText(text: string, strict: boolean): unknown {
  if (text.length === 0) return {};
  if (strict) {
    const first = firstNonWhitespace(text);
    if (first !== '{' && first !== '[')
      throw new SyntaxError('JSON text is not an object or array');
  }
  return JSON.parse(text);
}

/** The first character past JSON's own whitespace, as body-parser's strict check reads it. */
function firstNonWhitespace(text: string): string {
  for (const char of text) {
    if (char !== ' ' && char !== '\t' && char !== '\n' && char !== '\r') return char;
  }
  return '';
}

/** Shaped as body-parser's parse failure, which `httpFailureOf` reads (W3). */
function parseFailure(error: unknown, body: string): SyntaxError {
  const failure = new SyntaxError(error instanceof Error ? error.message : 'Invalid JSON');
  return Object.assign(failure, {
    status: 400,
    statusCode: 400,
    expose: true,
    type: 'entity.parse.failed',
    body,
  });
}

/** Shaped as raw-body's failures, which `httpFailureOf` and `isBodyTooLarge` read (W3, W12). */
function clientFailure(status: number, message: string, type: string): Error {
  return Object.assign(new Error(message), { status, statusCode: status, expose: true, type });
}
