import { execFile } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, '../../../..');
const protoRoot = join(repoRoot, 'proto');
export const pythonClientScript = resolve(here, '../../interop/python_client.py');

/** The interpreter with Debian's python3-grpcio and python3-protobuf. */
export const python = process.env.A2A_REMINDERS_PYTHON ?? '/usr/bin/python3';

/** Our proto and the googleapis protos it and the error model import. */
const protoFiles = [
  'a2a/reminders/v1/reminders.proto',
  'google/api/annotations.proto',
  'google/api/http.proto',
  'google/api/field_behavior.proto',
  'google/rpc/status.proto',
  'google/rpc/error_details.proto',
];

async function tool(command: string, args: string[], hint: string): Promise<string> {
  try {
    const { stdout } = await run(command, args, { maxBuffer: 1 << 20 });
    return stdout;
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new Error(`${command} ${args.join(' ')} failed (${hint}): ${detail}`);
  }
}

/**
 * Generates the Python stubs from proto/ with protoc and grpc_python_plugin
 * into a fresh directory under the OS temp dir, and returns that directory.
 * Fails with the missing tool named when the toolchain is absent.
 */
export async function generatePythonStubs(): Promise<string> {
  const apt = 'install protobuf-compiler protobuf-compiler-grpc python3-grpcio python3-protobuf';
  await tool(python, ['-c', 'import grpc, google.protobuf'], apt);
  const plugin = (await tool('which', ['grpc_python_plugin'], apt)).trim();
  const out = await mkdtemp(join(tmpdir(), 'a2a-reminders-python-'));
  await tool(
    'protoc',
    [
      `-I${protoRoot}`,
      `-I${join(protoRoot, 'third_party/googleapis')}`,
      `--plugin=protoc-gen-grpc_python=${plugin}`,
      `--python_out=${out}`,
      `--grpc_python_out=${out}`,
      ...protoFiles,
    ],
    apt,
  );
  return out;
}

/** Runs the Python client against `target` and returns the JSON it printed. */
export async function runPythonClient(
  genDir: string,
  target: string,
  taskId: string,
): Promise<unknown> {
  const stdout = await tool(
    python,
    [pythonClientScript, '--gen-dir', genDir, '--target', target, '--task-id', taskId],
    'the Python gRPC client',
  );
  return JSON.parse(stdout) as unknown;
}
