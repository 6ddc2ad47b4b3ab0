import { describe, expect, test } from 'vitest';
import { aggregate } from './aggregate.js';
import { kitCase, REQUIREMENTS } from './fixtures/synthetic-cases.js';
import { escapeXmlAttribute, escapeXmlText, junitXml } from './junit.js';

interface XmlElement {
  readonly name: string;
  readonly attributes: Record<string, string>;
  readonly children: XmlElement[];
  text: string;
}

/** Whether XML 1.0 allows the character at all (production Char). */
function xmlChar(code: number): boolean {
  return (
    code === 0x9 ||
    code === 0xa ||
    code === 0xd ||
    (code >= 0x20 && code <= 0xd7ff) ||
    (code >= 0xe000 && code <= 0xfffd) ||
    code >= 0x10000
  );
}

function decode(raw: string, where: string): string {
  if (/[<]/.test(raw)) throw new Error(`raw < in ${where}`);
  for (const char of raw) {
    if (!xmlChar(char.codePointAt(0) ?? 0)) throw new Error(`forbidden character in ${where}`);
  }
  return raw.replace(/&([^;]*);|&/g, (match, ref: string | undefined) => {
    if (ref === undefined) throw new Error(`bare & in ${where}`);
    const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
    if (ref in named) return named[ref] as string;
    const numeric = /^#(?:x([0-9a-fA-F]+)|([0-9]+))$/.exec(ref);
    if (numeric === null) throw new Error(`unknown entity ${match} in ${where}`);
    const code = numeric[1] === undefined ? Number(numeric[2]) : Number.parseInt(numeric[1], 16);
    if (!xmlChar(code)) throw new Error(`reference to a forbidden character ${match} in ${where}`);
    return String.fromCodePoint(code);
  });
}

/**
 * A strict reader for the subset of XML the writer emits (declaration,
 * elements, attributes in double quotes, text, references): it throws on
 * anything not well-formed, so the tests read the file back as a CI server
 * would, without an XML dependency.
 */
function parseXml(xml: string): XmlElement {
  const declaration = /^<\?xml version="1\.0" encoding="UTF-8"\?>\n/.exec(xml);
  if (declaration === null) throw new Error('no XML declaration');
  let at = declaration[0].length;
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  const tag = /<(\/?)([A-Za-z_][\w.-]*)((?:\s+[A-Za-z_][\w.-]*="[^"]*")*)\s*(\/?)>/y;
  const attribute = /\s+([A-Za-z_][\w.-]*)="([^"]*)"/g;
  while (at < xml.length) {
    const next = xml.indexOf('<', at);
    const text = xml.slice(at, next === -1 ? xml.length : next);
    if (text !== '') {
      const current = stack.at(-1);
      if (current === undefined) {
        if (text.trim() !== '') throw new Error('text outside the root element');
      } else current.text += decode(text, `text of <${current.name}>`);
    }
    if (next === -1) break;
    tag.lastIndex = next;
    const match = tag.exec(xml);
    if (match === null) throw new Error(`malformed tag at ${next}: ${xml.slice(next, next + 40)}`);
    const [whole, closing, name = '', attrs = '', selfClosing] = match;
    at = next + whole.length;
    if (closing === '/') {
      const open = stack.pop();
      if (open?.name !== name) throw new Error(`</${name}> closes <${open?.name}>`);
      if (stack.length === 0) root = open;
      continue;
    }
    const attributes: Record<string, string> = {};
    for (const [, key = '', value = ''] of attrs.matchAll(attribute)) {
      if (key in attributes) throw new Error(`attribute ${key} twice`);
      attributes[key] = decode(value, `attribute ${key}`);
    }
    const element: XmlElement = { name, attributes, children: [], text: '' };
    const parent = stack.at(-1);
    if (parent === undefined && root !== undefined) throw new Error('two root elements');
    parent?.children.push(element);
    if (selfClosing === '/') {
      if (parent === undefined) root = element;
    } else stack.push(element);
  }
  if (stack.length > 0 || root === undefined) throw new Error('unclosed elements');
  return root;
}

function only(elements: XmlElement[], name: string): XmlElement[] {
  return elements.filter((e) => e.name === name);
}

const HOSTILE = `<&"'> ]]> \u0001\u001b[31m\ufffe\ud800 tab\there\nline`;

function sampleReport() {
  return aggregate(
    {
      cases: [
        kitCase({
          binding: 'jsonrpc',
          requirement: 'R1-extension-uri',
          rule: 'R1',
          state: 'passed',
          durationMs: 1500,
        }),
        kitCase({
          binding: 'jsonrpc',
          requirement: 'R13-idempotent-resend',
          rule: 'R13',
          state: 'failed',
          message: `first line ${HOSTILE}`,
          exchanges: [
            {
              call: 'InjectTaskReminder',
              binding: 'jsonrpc',
              request: { body: HOSTILE },
              response: { text: HOSTILE },
            },
          ],
        }),
        kitCase({
          binding: 'rest',
          requirement: 'R1-extension-uri',
          rule: 'R1',
          state: 'skipped',
          notObservable: `needs a clock ${HOSTILE}`,
        }),
      ],
      runErrors: [],
    },
    { bindings: ['jsonrpc', 'rest'], requirements: REQUIREMENTS, cardUrl: 'http://a/?x=1&y=2' },
  );
}

describe('JUnit XML', () => {
  test('one testsuite per binding, one testcase per rule, failures with their exchanges, skipped for not observable', () => {
    const root = parseXml(junitXml(sampleReport()));
    expect(root.name).toBe('testsuites');
    expect(root.attributes).toMatchObject({
      tests: '10',
      failures: '1',
      errors: '0',
      skipped: '8',
    });
    const suites = only(root.children, 'testsuite');
    expect(suites.map((s) => s.attributes.name)).toEqual([
      'a2a-reminders.jsonrpc',
      'a2a-reminders.rest',
    ]);
    const [jsonrpc, rest] = suites;
    expect(jsonrpc?.attributes).toMatchObject({ tests: '5', failures: '1', skipped: '3' });
    expect(only(jsonrpc?.children ?? [], 'properties')[0]?.children[0]?.attributes).toEqual({
      name: 'card-url',
      value: 'http://a/?x=1&y=2',
    });
    const cases = only(jsonrpc?.children ?? [], 'testcase');
    expect(cases.map((c) => c.attributes.name)).toEqual([
      'R1 the extension URI keys the metadata',
      'R13 an identical re-send changes nothing; also after the task ended',
      'R43 integer fields take JSON numbers or decimal strings only',
      'R52 events of either replica reach the stream',
      'W2 answers are application/json',
    ]);
    expect(cases[0]?.attributes).toMatchObject({
      classname: 'a2a-reminders.jsonrpc',
      time: '1.500',
    });
    expect(cases[0]?.children).toEqual([]);
    const failure = cases[1]?.children[0];
    expect(failure?.name).toBe('failure');
    expect(
      failure?.attributes.message?.startsWith('first line <&"\'> ]]> \\u0001\\u001b[31m'),
    ).toBe(true);
    expect(failure?.text).toContain('exchange 1 of 1: InjectTaskReminder over jsonrpc');
    expect(failure?.text).toContain('request sent:');
    expect(failure?.text).toContain('response received:');
    const skipped = only(rest?.children ?? [], 'testcase')[0]?.children[0];
    expect(skipped?.name).toBe('skipped');
    expect(
      skipped?.attributes.message?.startsWith('not observable: needs a clock <&"\'> ]]>'),
    ).toBe(true);
  });

  test('markup, quotes, tabs and newlines survive escaping; characters XML cannot hold become \\u escapes', () => {
    const text = escapeXmlText(HOSTILE);
    const attribute = escapeXmlAttribute(HOSTILE);
    expect(text).not.toContain(']]>');
    const readBack = parseXml(
      `<?xml version="1.0" encoding="UTF-8"?>\n<r a="${attribute}">${text}</r>`,
    );
    const expected = `<&"'> ]]> \\u0001\\u001b[31m\\ufffe\\ud800 tab\there\nline`;
    expect(readBack.text).toBe(expected);
    // In an attribute, tab and newline are references, so a parser keeps them.
    expect(attribute).toContain('&#9;');
    expect(attribute).toContain('&#10;');
    expect(readBack.attributes.a).toBe(expected);
    // A pair of surrogates is one allowed character, kept as is.
    expect(escapeXmlText('😀')).toBe('😀');
  });

  test('the reader the tests use rejects what is not well-formed', () => {
    const head = '<?xml version="1.0" encoding="UTF-8"?>\n';
    for (const bad of [
      '<r a="x<y"/>',
      '<r>&bogus;</r>',
      '<r>a & b</r>',
      '<r>\u0001</r>',
      '<r>&#1;</r>',
      "<r a='x'/>",
      '<r><s></r></s>',
      '<r/><r/>',
    ]) {
      expect(() => parseXml(head + bad), bad).toThrow();
    }
  });

  test('run errors and failed unattributed cases form a kit suite, so CI never shows a broken run as green', () => {
    const stray = {
      ...kitCase({
        binding: 'rest',
        requirement: 'x',
        rule: 'R1',
        state: 'failed',
        message: 'boom',
        noMeta: true,
      }),
      name: '[direct] something: else',
    };
    const report = aggregate(
      {
        cases: [stray],
        runErrors: ['src/scenarios/a.test.ts: SyntaxError: <oops>'],
        vitestOutput: 'said & done',
      },
      { bindings: ['rest'], requirements: REQUIREMENTS },
    );
    const root = parseXml(junitXml(report));
    const kit = only(root.children, 'testsuite').find(
      (s) => s.attributes.name === 'a2a-reminders.kit',
    );
    expect(kit?.attributes).toMatchObject({ errors: '2', failures: '1', tests: '3' });
    const errors = (kit?.children ?? []).flatMap((c) => only(c.children, 'error'));
    expect(errors[0]?.attributes.message).toBe('src/scenarios/a.test.ts: SyntaxError: <oops>');
    expect(errors[0]?.text).toContain('vitest printed:\nsaid & done');
    expect(root.attributes).toMatchObject({ errors: '2', failures: '1' });
  });
});
