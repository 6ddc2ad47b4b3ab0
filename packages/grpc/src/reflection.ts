import { ErrorInfoSchema, StatusSchema, TaskReminderService } from '@a2a-reminders/proto';
import type { DescFile } from '@bufbuild/protobuf';
import { toBinary } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import type { Server } from '@grpc/grpc-js';
import { ReflectionService } from '@grpc/reflection';

export interface ReminderReflectionOptions {
  /**
   * More protobuf-es files to describe beside `a2a/reminders/v1/reminders.proto`,
   * e.g. the files of your own services on the same server. Their imports are
   * added too.
   */
  readonly files?: readonly DescFile[];
}

/**
 * Serves gRPC server reflection (`grpc.reflection.v1` and `v1alpha`) on
 * `server`, describing `a2a.reminders.v1.TaskReminderService` and the
 * `google.rpc` error details its errors carry, so grpcurl, Postman and
 * `buf curl` can list and call the reminder rpcs without the proto files
 * (issue 11). The descriptors are the ones protobuf-es embeds in the
 * generated code, with every file they import (`google/api/*`,
 * `google/protobuf/*`): nothing is restated or read from disk. (`@grpc/reflection`
 * re-encodes them through protobufjs, which drops custom options such as
 * `google.api.http`; messages, fields and rpcs are served as `proto/` has them.)
 *
 * The SDK's `lf.a2a.v1.A2AService` is not described: `@a2a-js/sdk` ships no
 * descriptors of it (its generated code has none, and its `.proto` is not in
 * the package), so reflection could only describe it from a copy kept here.
 */
export function addReminderReflection(
  server: Pick<Server, 'addService'>,
  options: ReminderReflectionOptions = {},
): void {
  // The error details' and google.rpc.Status's files too, so a client can decode
  // the grpc-status-details-bin every error carries (A2A v1.0 §5; spec R39).
  const files = [
    TaskReminderService.file,
    StatusSchema.file,
    ErrorInfoSchema.file,
    ...(options.files ?? []),
  ];
  reflectionServiceOf(files).addToServer(server);
}

/**
 * A reflection service over `files` and their imports. `@grpc/reflection`
 * takes a proto-loader package definition but reads only each entry's
 * `fileDescriptorProtos` (serialized `google.protobuf.FileDescriptorProto`s),
 * so one entry holding them all is enough.
 */
function reflectionServiceOf(files: readonly DescFile[]): ReflectionService {
  const definition = {
    'a2a.reminders.reflection': {
      format: 'Protocol Buffer 3 FileDescriptorProto',
      type: {},
      fileDescriptorProtos: fileDescriptorProtos(files).map((bytes) => Buffer.from(bytes)),
    },
  };
  return new ReflectionService(
    definition as unknown as ConstructorParameters<typeof ReflectionService>[0],
  );
}

/**
 * The serialized `FileDescriptorProto` of every file in `files` and of every
 * file they import, transitively, each once, imports before importers.
 */
export function fileDescriptorProtos(files: readonly DescFile[]): Uint8Array[] {
  const seen = new Set<string>();
  const ordered: DescFile[] = [];
  const visit = (file: DescFile) => {
    if (seen.has(file.proto.name)) return;
    seen.add(file.proto.name);
    for (const dependency of file.dependencies) visit(dependency);
    ordered.push(file);
  };
  for (const file of files) visit(file);
  return ordered.map((file) => toBinary(FileDescriptorProtoSchema, file.proto));
}
