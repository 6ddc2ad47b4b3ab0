/**
 * Shortening what the agent sent before it is printed: a failing exchange
 * may hold a 64 KiB reminder body or a thousand-item listing, and a report
 * that is mostly one value is not read. Every cut says so, with the size of
 * what was cut; the JSON report (--json) keeps everything.
 */
export interface ClipLimits {
  /** Longest string kept whole, in UTF-16 units. */
  readonly maxString: number;
  /** Array items and object keys kept, each. */
  readonly maxItems: number;
  /** Nesting kept below the top. */
  readonly maxDepth: number;
  /** Lines kept of one pretty-printed value. */
  readonly maxLines: number;
  /** Exchanges shown per failed case: the last ones, which led to the failure. */
  readonly maxExchanges: number;
}

/** For the console: a screenful per value. */
export const CONSOLE_LIMITS: ClipLimits = {
  maxString: 200,
  maxItems: 20,
  maxDepth: 10,
  maxLines: 40,
  maxExchanges: 6,
};

/** For JUnit: CI pages show more, but a report file should stay small. */
export const JUNIT_LIMITS: ClipLimits = {
  maxString: 2000,
  maxItems: 100,
  maxDepth: 20,
  maxLines: 400,
  maxExchanges: 40,
};

/** The first `max` units of `text`, never ending inside a surrogate pair. */
function head(text: string, max: number): string {
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

/** `text`, or its start and a note of its length when longer than `max`. */
export function clipText(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${head(text, max)}… [truncated: ${text.length} characters in all]`;
}

/** `text`, or its first `max` lines and a note of how many more there were. */
export function clipLines(text: string, max: number): string {
  const lines = text.split('\n');
  if (lines.length <= max) return text;
  return [...lines.slice(0, max), `… [truncated: ${lines.length - max} more lines]`].join('\n');
}

/**
 * `value` as a JSON value within the limits. It came through vitest's
 * serialization from the harness, so it is meant to be JSON, but nothing
 * here throws on what is not: bigints, byte arrays and cycles are described.
 */
export function clipValue(
  value: unknown,
  limits: ClipLimits,
  depth = 0,
  seen = new Set<object>(),
): unknown {
  if (typeof value === 'string') return clipText(value, limits.maxString);
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'function' || typeof value === 'symbol') return `[${typeof value}]`;
  if (typeof value !== 'object' || value === null) return value;
  if (seen.has(value)) return '[circular]';
  if (value instanceof Uint8Array) {
    const hex = Buffer.from(value.subarray(0, 32)).toString('hex');
    return `[${value.length} bytes: ${hex}${value.length > 32 ? '…' : ''}]`;
  }
  if (depth >= limits.maxDepth)
    return Array.isArray(value) ? '[array: too deep]' : '[object: too deep]';
  seen.add(value);
  try {
    if (Array.isArray(value)) {
      const items = value
        .slice(0, limits.maxItems)
        .map((v) => clipValue(v, limits, depth + 1, seen));
      if (value.length > limits.maxItems) {
        items.push(`… [truncated: ${value.length - limits.maxItems} more items]`);
      }
      return items;
    }
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    const kept = entries
      .slice(0, limits.maxItems)
      .map(([k, v]) => [clipText(k, limits.maxString), clipValue(v, limits, depth + 1, seen)]);
    if (entries.length > limits.maxItems) {
      kept.push(['…', `[truncated: ${entries.length - limits.maxItems} more keys]`]);
    }
    return Object.fromEntries(kept);
  } finally {
    seen.delete(value);
  }
}

/** JSON on one line, spaced as people write it: `{ "a": 1, "b": [1, 2] }`. */
function oneLine(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(oneLine).join(', ')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    if (entries.length === 0) return '{}';
    return `{ ${entries.map(([k, v]) => `${JSON.stringify(k)}: ${oneLine(v)}`).join(', ')} }`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * JSON indented by two spaces, except that an object or array whose one-line
 * form fits in `width` (counting its indentation) stays on one line: a task's
 * parts or a status then take a line, not ten.
 */
function render(value: unknown, indent: string, prefix: number, width: number): string {
  const line = oneLine(value);
  if (
    typeof value !== 'object' ||
    value === null ||
    indent.length + prefix + line.length <= width
  ) {
    return line;
  }
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    const items = value.map((item) => `${inner}${render(item, inner, 0, width)}`);
    return `[\n${items.join(',\n')}\n${indent}]`;
  }
  const entries = Object.entries(value).filter(([, v]) => v !== undefined);
  if (entries.length === 0) return '{}';
  const lines = entries.map(([key, v]) => {
    const label = `${JSON.stringify(key)}: `;
    return `${inner}${label}${render(v, inner, label.length, width)}`;
  });
  return `{\n${lines.join(',\n')}\n${indent}}`;
}

/** `value` pretty-printed as JSON within the limits, `width` columns wide where it can be. */
export function prettyJson(value: unknown, limits: ClipLimits, width = 90): string {
  return clipLines(render(clipValue(value, limits), '', 0, width), limits.maxLines);
}

/**
 * C0 and C1 controls (but newline and tab), DEL, lone surrogates, and the
 * bidi controls that can reorder what a terminal shows (Trojan Source): what
 * the agent sent may hold any of them, and R46 cases send them on purpose.
 */
function unsafe(code: number): boolean {
  return (
    (code < 0x20 && code !== 0x0a && code !== 0x09) ||
    (code >= 0x7f && code <= 0x9f) ||
    (code >= 0xd800 && code <= 0xdfff) ||
    code === 0x061c ||
    code === 0x200e ||
    code === 0x200f ||
    (code >= 0x202a && code <= 0x202e) ||
    (code >= 0x2066 && code <= 0x2069)
  );
}

/** `text` with every control, bidi and lone surrogate character written as a `\uXXXX` escape. */
export function visible(text: string): string {
  let out = '';
  // By code point: a surrogate seen alone here has no partner.
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    out += unsafe(code) ? `\\u${code.toString(16).padStart(4, '0')}` : char;
  }
  return out;
}
