import type { PathTemplate } from '@a2a-reminders/proto';

/**
 * Matches a request path (still percent-encoded, relative to the mount point)
 * against a parsed `google.api.http` template and returns the raw variable
 * values by ProtoJSON field name, or `undefined` when it does not match.
 * Matching by hand keeps the AIP-136 `:verb` suffix literal, which express 5
 * path syntax would read as a parameter.
 */
export function matchPathTemplate(
  template: PathTemplate,
  path: string,
): Record<string, string> | undefined {
  let rest = path;
  if (template.verb !== undefined) {
    const suffix = `:${template.verb}`;
    if (!rest.endsWith(suffix)) return undefined;
    rest = rest.slice(0, -suffix.length);
  }
  if (!rest.startsWith('/') || !endsWithLastLiteral(template, rest)) return undefined;
  const parts = rest.slice(1).split('/');
  if (parts.length !== template.segments.length) return undefined;
  const values: Record<string, string> = {};
  for (const [i, segment] of template.segments.entries()) {
    const part = parts[i] ?? '';
    if (segment.kind === 'literal') {
      if (part !== segment.value) return undefined;
    } else {
      if (part === '') return undefined;
      values[segment.jsonName] = part;
    }
  }
  return values;
}

/**
 * Whether `path` can end in the template's last segment, when that is a
 * literal: `/tasks/t1` cannot be `/tasks/{task_id}/reminders`. Checked before
 * splitting, so that an SDK GET on the same prefix (GetTask), which matches no
 * template, is turned away without a split (the goal that mounting costs the
 * SDK's GetTask at most 3 %, packages/bench README).
 */
function endsWithLastLiteral(template: PathTemplate, path: string): boolean {
  const last = template.segments[template.segments.length - 1];
  if (last?.kind !== 'literal') return true;
  const start = path.length - last.value.length;
  return path.endsWith(last.value) && path.charCodeAt(start - 1) === SLASH;
}

const SLASH = 0x2f;

/**
 * Fills a template with values by ProtoJSON field name, percent-encoding each
 * (so a `:` in an id never reads as a custom verb); `undefined` if a variable
 * has no non-empty value.
 */
export function expandPathTemplate(
  template: PathTemplate,
  values: Readonly<Record<string, unknown>>,
): string | undefined {
  const parts: string[] = [];
  for (const segment of template.segments) {
    if (segment.kind === 'literal') {
      parts.push(segment.value);
      continue;
    }
    const value = values[segment.jsonName];
    if (typeof value !== 'string' || value === '') return undefined;
    parts.push(encodeURIComponent(value));
  }
  return `/${parts.join('/')}${template.verb === undefined ? '' : `:${template.verb}`}`;
}

/** The ProtoJSON names of the fields a template binds. */
export function boundFields(template: PathTemplate): string[] {
  return template.segments.flatMap((s) => (s.kind === 'variable' ? [s.jsonName] : []));
}
