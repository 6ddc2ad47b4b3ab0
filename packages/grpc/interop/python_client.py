#!/usr/bin/env python3
"""A Python gRPC client of a2a.reminders.v1.TaskReminderService.

It proves the polyglot promise of issue 4: stubs generated from proto/ with
protoc and grpc_python_plugin talk to the grpc-js server. It injects one valid
reminder, then an invalid one and one into a missing task, then a forwarded
copy with provenance and one whose provenance loops back, and prints what it
observed as one JSON object on stdout; the calling test asserts on it.

Usage: python_client.py --gen-dir DIR --target HOST:PORT --task-id ID
DIR holds the generated *_pb2.py / *_pb2_grpc.py modules.
"""

import argparse
import json
import sys

import grpc
from google.protobuf import json_format

EXTENSION_URI = "https://a2a-reminders.dev/extensions/task-reminders/v1"
STATUS_DETAILS_KEY = "grpc-status-details-bin"


def failure(stub, request, metadata):
    """Calls InjectTaskReminder expecting an error; returns its status and decoded details."""
    # Generated from proto/third_party/googleapis, importable once --gen-dir is on sys.path.
    from google.rpc import error_details_pb2, status_pb2

    try:
        stub.InjectTaskReminder(request, metadata=metadata, timeout=10)
        return {"unexpectedSuccess": True}
    except grpc.RpcError as error:
        status = None
        for key, value in error.trailing_metadata() or ():
            if key == STATUS_DETAILS_KEY:
                status = status_pb2.Status.FromString(value)
        error_infos, field_violations = [], []
        for detail in status.details if status is not None else ():
            if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
                info = error_details_pb2.ErrorInfo()
                detail.Unpack(info)
                error_infos.append(json_format.MessageToDict(info))
            elif detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
                bad_request = error_details_pb2.BadRequest()
                detail.Unpack(bad_request)
                field_violations.extend(
                    {"field": v.field, "description": v.description}
                    for v in bad_request.field_violations
                )
        return {
            "code": error.code().name,
            "message": error.details(),
            "statusCode": status.code if status is not None else None,
            "statusMessage": status.message if status is not None else None,
            "errorInfos": error_infos,
            "fieldViolations": field_violations,
        }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--gen-dir", required=True)
    parser.add_argument("--target", required=True)
    parser.add_argument("--task-id", required=True)
    args = parser.parse_args()
    sys.path.insert(0, args.gen_dir)

    from a2a.reminders.v1 import reminders_pb2, reminders_pb2_grpc

    # A2A v1.0 service parameters travel as gRPC metadata (A2A v1.0 §3.2.6).
    metadata = [("a2a-version", "1.0"), ("a2a-extensions", EXTENSION_URI)]
    out = {}
    with grpc.insecure_channel(args.target) as channel:
        stub = reminders_pb2_grpc.TaskReminderServiceStub(channel)

        valid = reminders_pb2.InjectTaskReminderRequest(
            task_id=args.task_id,
            reminder=reminders_pb2.TaskReminder(
                id="py-reminder-1",
                body="Budget is 80% spent; prefer cheaper tools.",
                ttl_turns=2,
                source="python-interop",
            ),
        )
        response, call = stub.InjectTaskReminder.with_call(valid, metadata=metadata, timeout=10)
        out["inject"] = json_format.MessageToDict(response)
        out["injectInitialMetadata"] = {k: v for k, v in call.initial_metadata()}

        invalid = reminders_pb2.InjectTaskReminderRequest(
            task_id=args.task_id,
            reminder=reminders_pb2.TaskReminder(id="not valid!", body="   ", ttl_turns=0),
        )
        out["invalid"] = failure(stub, invalid, metadata)

        missing = reminders_pb2.InjectTaskReminderRequest(
            task_id=args.task_id + "-does-not-exist",
            reminder=reminders_pb2.TaskReminder(id="py-reminder-2", body="Anyone there?"),
        )
        out["missingTask"] = failure(stub, missing, metadata)

        # Spec §15: a Python agent forwarding a copy it got from its own parent task.
        hop = reminders_pb2.ReminderHop(
            task_id="py-parent-task", reminder_id="ci-run-7", source="ci"
        )
        copy = reminders_pb2.InjectTaskReminderRequest(
            task_id=args.task_id,
            reminder=reminders_pb2.TaskReminder(
                id="ci-run-7",
                body="CI run 7 failed on main.",
                source="python-forwarder",
                provenance=reminders_pb2.ReminderProvenance(hops=[hop]),
            ),
        )
        out["forwarded"] = json_format.MessageToDict(
            stub.InjectTaskReminder(copy, metadata=metadata, timeout=10)
        )
        looping = reminders_pb2.InjectTaskReminderRequest(
            task_id=args.task_id,
            reminder=reminders_pb2.TaskReminder(
                id="ci-run-8",
                body="CI run 8 failed on main.",
                provenance=reminders_pb2.ReminderProvenance(
                    hops=[hop, reminders_pb2.ReminderHop(task_id=args.task_id, reminder_id="x")]
                ),
            ),
        )
        out["loop"] = failure(stub, looping, metadata)

    json.dump(out, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
