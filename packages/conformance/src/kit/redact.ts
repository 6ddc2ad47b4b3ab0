/** What replaces a secret in every report. */
export const REDACTED = '[redacted]';

/**
 * The strings to hide for these header values: each value, and the
 * credential of an `<scheme> <credential>` value (a bearer token may be
 * echoed alone). Short values are left alone: hiding "1" everywhere would
 * ruin the report and protect nothing.
 */
export function secretsOf(headers: Readonly<Record<string, string>>): string[] {
  const secrets = Object.values(headers).flatMap((value) => {
    const credential = /^\S+ +(\S.*)$/.exec(value)?.[1];
    return credential === undefined ? [value] : [value, credential];
  });
  // Longest first, so a value is replaced whole before its credential part.
  return [...new Set(secrets.filter((s) => s.length >= 6))].sort((a, b) => b.length - a.length);
}

/**
 * `value` with every occurrence of a secret replaced, in every string at any
 * depth (keys too). The extra headers carry credentials, and a harness may
 * record the request headers it sent in an exchange: the console, JUnit and
 * JSON reports end up in CI logs and artifacts.
 */
export function redact<T>(value: T, secrets: readonly string[]): T {
  if (secrets.length === 0) return value;
  const text = (s: string) => secrets.reduce((out, secret) => out.split(secret).join(REDACTED), s);
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return text(v);
    if (Array.isArray(v)) return v.map(walk);
    if (typeof v === 'object' && v !== null) {
      return Object.fromEntries(Object.entries(v).map(([k, inner]) => [text(k), walk(inner)]));
    }
    return v;
  };
  return walk(value) as T;
}
