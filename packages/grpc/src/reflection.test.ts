import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import {
  createReminderService,
  reminderAgentExtension,
  TASK_REMINDERS_EXTENSION_URI,
} from '@a2a-reminders/core';
import { TaskReminderService } from '@a2a-reminders/proto';
import { fromBinary } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileDescriptorProtos } from './reflection.js';
import type { TestServer } from './testing/test-server.js';
import { startTestServer, TaskState } from './testing/test-server.js';

// Issue 11: grpcurl-style clients call the reminder rpcs through server
// reflection, without the proto files. The client here is `buf curl` (a Go
// implementation, independent of grpc-js), run in an empty directory.

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const BUF = require.resolve('@bufbuild/buf/bin/buf');
/** The reflection service's own schema, as `@grpc/reflection` ships it. */
const REFLECTION_PROTO = join(
  dirname(require.resolve('@grpc/reflection/package.json')),
  'build/proto/grpc/reflection/v1/reflection.proto',
);
const SERVICE = 'a2a.reminders.v1.TaskReminderService';

/** Runs `buf curl` over gRPC in an empty directory, so no local proto file can be read. */
async function bufCurl(args: readonly string[]): Promise<string> {
  const { stdout } = await run(BUF, ['curl', '--protocol', 'grpc', ...args], { cwd: tmpdir() });
  return stdout;
}

let server: TestServer;
let baseUrl = '';

beforeAll(async () => {
  server = await startTestServer({
    reminders: (deps) => createReminderService(deps),
    extensions: [reminderAgentExtension()],
    reflection: true,
  });
  baseUrl = server.baseUrl;
  await server.seedTask('task-1', TaskState.TASK_STATE_WORKING); // the README's
});

afterAll(() => server?.close());

describe('gRPC server reflection', () => {
  it("lets the README's buf curl list the methods and call InjectTaskReminder, with no proto files", async () => {
    const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
    const section = readme
      .split(/^## /m)
      .find((s) => s.startsWith('Raw gRPC and server reflection'));
    const block = /```sh\n([\s\S]*?)```/.exec(section ?? '')?.[1];
    expect(block).toContain(`-H 'a2a-extensions: ${TASK_REMINDERS_EXTENSION_URI}'`);
    const { stdout } = await run(
      'bash',
      ['-c', `set -euo pipefail\n${block?.replaceAll('http://127.0.0.1:50051', baseUrl)}`],
      // `buf` as the README runs it: the one in @bufbuild/buf, first on the PATH.
      { cwd: tmpdir(), env: { ...process.env, PATH: `${dirname(BUF)}:${process.env.PATH}` } },
    );
    // The method list, one per line, then the response's JSON.
    const json = stdout.indexOf('{');
    expect(stdout.slice(0, json).trim().split('\n')).toEqual([
      `${SERVICE}/CancelTaskReminder`,
      `${SERVICE}/InjectTaskReminder`,
      `${SERVICE}/ListTaskReminders`,
    ]);
    const response = JSON.parse(stdout.slice(json));
    expect(response.record.reminder).toEqual({
      id: 'ci-red',
      body: 'CI is red on main.',
      ttlTurns: 2,
    });
    expect(response.record.state).toBe('REMINDER_STATE_PENDING');
    expect(response.taskState).toBe('TASK_STATE_WORKING');
  });

  it('lists the reminder service alone', async () => {
    expect((await bufCurl(['--list-services', baseUrl])).trim().split('\n')).toEqual([SERVICE]);
  });

  it('describes google.rpc.Status and the error details that every error carries', async () => {
    const fileOf = async (symbol: string) => {
      const stdout = await bufCurl([
        '--schema',
        REFLECTION_PROTO,
        '-d',
        JSON.stringify({ fileContainingSymbol: symbol }),
        `${baseUrl}/grpc.reflection.v1.ServerReflection/ServerReflectionInfo`,
      ]);
      const files = (JSON.parse(stdout).fileDescriptorResponse.fileDescriptorProto as string[]).map(
        (b64) => fromBinary(FileDescriptorProtoSchema, Buffer.from(b64, 'base64')),
      );
      return files[0];
    };
    const details = await fileOf('google.rpc.BadRequest');
    expect(details?.name).toBe('google/rpc/error_details.proto');
    expect(details?.messageType.map((m) => m.name)).toContain('ErrorInfo');
    const status = await fileOf('google.rpc.Status');
    expect(status?.name).toBe('google/rpc/status.proto');
  });
});

describe('fileDescriptorProtos', () => {
  it('gives every imported file once, before the files that import it', () => {
    const names = fileDescriptorProtos([TaskReminderService.file, TaskReminderService.file]).map(
      (bytes) => fromBinary(FileDescriptorProtoSchema, bytes).name,
    );
    expect(new Set(names).size).toBe(names.length);
    expect(names.at(-1)).toBe('a2a/reminders/v1/reminders.proto');
    for (const dependency of TaskReminderService.file.proto.dependency) {
      expect(names.indexOf(dependency), dependency).toBeGreaterThanOrEqual(0);
      expect(names.indexOf(dependency)).toBeLessThan(names.length - 1);
    }
    expect(names.indexOf('google/protobuf/descriptor.proto')).toBeLessThan(
      names.indexOf('google/api/annotations.proto'),
    );
  });
});
