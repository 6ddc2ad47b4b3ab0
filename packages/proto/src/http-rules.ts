import type { DescMethod } from '@bufbuild/protobuf';
import { getOption, hasOption } from '@bufbuild/protobuf';
import { http } from './gen/google/api/annotations_pb.js';
import type { HttpRule } from './gen/google/api/http_pb.js';

/** An HTTP verb a `google.api.http` rule can name (custom verbs are not used by this API). */
export type HttpVerb = 'get' | 'put' | 'post' | 'delete' | 'patch';

/** One segment of a parsed path template: a literal, or a variable bound to a request field. */
export type PathSegment =
  | { readonly kind: 'literal'; readonly value: string }
  | {
      readonly kind: 'variable';
      /** The proto field name, e.g. `task_id`. */
      readonly field: string;
      /** The ProtoJSON (lowerCamel) name of that field, e.g. `taskId`. */
      readonly jsonName: string;
    };

/** A `google.api.http` path template, e.g. `/{tenant}/tasks/{task_id=*}:injectReminder`. */
export interface PathTemplate {
  /** The template exactly as written in the proto. */
  readonly source: string;
  readonly segments: readonly PathSegment[];
  /** The AIP-136 custom verb after the last `:`, e.g. `injectReminder`, if any. */
  readonly verb: string | undefined;
}

/** One HTTP binding of an rpc: the primary rule or one of its `additional_bindings`. */
export interface HttpBinding {
  readonly verb: HttpVerb;
  readonly path: PathTemplate;
  /** `*` (whole request is the body), a field name, or `''` (no body). */
  readonly body: string;
}

/**
 * Reads every HTTP binding of a method from its `google.api.http` option, the
 * primary rule first, then `additional_bindings` in declaration order.
 * Throws when the method has no rule: every rpc of this API must be reachable
 * over HTTP+JSON.
 */
export function httpBindingsOf(method: DescMethod): HttpBinding[] {
  if (!hasOption(method, http)) {
    throw new Error(`rpc ${method.parent.typeName}.${method.name} has no google.api.http option`);
  }
  const rule = getOption(method, http);
  return [rule, ...rule.additionalBindings].map((r) => toBinding(method, r));
}

function toBinding(method: DescMethod, rule: HttpRule): HttpBinding {
  const { case: verb, value } = rule.pattern;
  if (verb === undefined || verb === 'custom') {
    throw new Error(`rpc ${method.name}: unsupported HTTP pattern ${String(verb)}`);
  }
  return { verb, path: parsePathTemplate(method, value), body: rule.body };
}

/**
 * Parses a path template of the form AIP-127 allows for this API: literal
 * segments, single-segment variables `{field}` or `{field=*}`, and an optional
 * trailing `:verb`. Each variable must name a field of the request message.
 */
export function parsePathTemplate(method: DescMethod, source: string): PathTemplate {
  if (!source.startsWith('/')) {
    throw new Error(`rpc ${method.name}: path template must start with '/': ${source}`);
  }
  // The custom verb follows the last ':' outside braces.
  const lastBrace = source.lastIndexOf('}');
  const colon = source.indexOf(':', lastBrace + 1);
  const path = colon === -1 ? source : source.slice(0, colon);
  const verb = colon === -1 ? undefined : source.slice(colon + 1);
  const segments = path
    .slice(1)
    .split('/')
    .map((raw): PathSegment => {
      const m = /^\{([a-z_][a-z0-9_]*)(?:=\*)?\}$/.exec(raw);
      if (m === null) {
        if (raw.includes('{') || raw.includes('*') || raw === '') {
          throw new Error(`rpc ${method.name}: unsupported path segment '${raw}' in ${source}`);
        }
        return { kind: 'literal', value: raw };
      }
      const field = method.input.fields.find((f) => f.name === m[1]);
      if (field === undefined) {
        throw new Error(`rpc ${method.name}: path variable '${m[1]}' is not a request field`);
      }
      return { kind: 'variable', field: field.name, jsonName: field.jsonName };
    });
  return { source, segments, verb };
}
