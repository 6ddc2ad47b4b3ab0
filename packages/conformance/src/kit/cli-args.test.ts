import { describe, expect, test } from 'vitest';
import { parseKitArgs, UsageError } from './cli-args.js';

const URL = 'http://127.0.0.1:41241/.well-known/agent-card.json';

describe('parseKitArgs', () => {
  test('--help, alone or with anything else', () => {
    expect(parseKitArgs(['--help'])).toEqual({ kind: 'help' });
    expect(parseKitArgs(['-h', '--card-url', URL])).toEqual({ kind: 'help' });
  });

  test('the card URL alone: every binding the card lists, no headers, no files', () => {
    expect(parseKitArgs(['--card-url', URL])).toEqual({
      kind: 'run',
      options: { cardUrl: URL, headers: {} },
    });
  });

  test('bindings repeat or come comma-separated, and are kept in the kit’s order without duplicates', () => {
    const command = parseKitArgs([
      '--card-url',
      URL,
      '--binding',
      'grpc',
      '--binding',
      'rest,jsonrpc,grpc',
    ]);
    expect(command.kind === 'run' && command.options.bindings).toEqual(['jsonrpc', 'rest', 'grpc']);
    expect(() => parseKitArgs(['--card-url', URL, '--binding', 'http'])).toThrow(
      "--binding must be one of jsonrpc, rest, grpc, got 'http'",
    );
    expect(() => parseKitArgs(['--card-url', URL, '--binding', ','])).toThrow('names no binding');
  });

  test('headers: name: value, trimmed, a later one replacing an earlier one of the same name in any case', () => {
    const command = parseKitArgs([
      '--card-url',
      URL,
      '--header',
      'Authorization:  Bearer a:b ',
      '--header',
      'x-tenant: t1',
      '--header',
      'X-Tenant: t2',
    ]);
    expect(command.kind === 'run' && command.options.headers).toEqual({
      Authorization: 'Bearer a:b',
      'X-Tenant': 't2',
    });
    for (const bad of ['no colon', ': value', 'bad name: v']) {
      expect(() => parseKitArgs(['--card-url', URL, '--header', bad]), bad).toThrow(UsageError);
    }
  });

  test('headers from A2A_REMINDERS_KIT_HEADERS, which --header overrides; a bad value is a usage error', () => {
    const env = { A2A_REMINDERS_KIT_HEADERS: '{"authorization":"Bearer env","x-a":"1"}' };
    const command = parseKitArgs(
      ['--card-url', URL, '--header', 'Authorization: Bearer flag'],
      env,
    );
    expect(command.kind === 'run' && command.options.headers).toEqual({
      Authorization: 'Bearer flag',
      'x-a': '1',
    });
    for (const value of ['nope', '[]', '{"a":1}', '{"a":"x\\r\\nb: c"}']) {
      expect(
        () => parseKitArgs(['--card-url', URL], { A2A_REMINDERS_KIT_HEADERS: value }),
        value,
      ).toThrow(UsageError);
    }
  });

  test('--junit and --json take their files', () => {
    const command = parseKitArgs([
      '--card-url',
      URL,
      '--junit',
      'out/kit.xml',
      '--json',
      'out/kit.json',
    ]);
    expect(command).toEqual({
      kind: 'run',
      options: { cardUrl: URL, headers: {}, junit: 'out/kit.xml', json: 'out/kit.json' },
    });
  });

  test('a missing card URL, an unknown option, a missing value or a stray argument is a usage error', () => {
    for (const argv of [
      [],
      ['--card-url'],
      ['--card-url', ' '],
      ['--card-url', URL, '--nope'],
      ['--card-url', URL, 'extra'],
    ]) {
      expect(() => parseKitArgs(argv), argv.join(' ')).toThrow(UsageError);
    }
  });
});
