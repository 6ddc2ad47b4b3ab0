import type { Arm } from './harness/arms.js';
import type { StoreParameter } from './harness/stack-store.js';

/** A requirement an arm is declared to fail, with the reason; it runs as `test.fails`. */
export interface KnownFailure {
  readonly arm: Arm;
  /** The verification variant that fails (see `verifies` options); the main one when absent. */
  readonly variant?: string;
  readonly reason: string;
}

/** One verifiable rule: pure data, cited by scenario files through `verifies(id, …)`. */
export interface Requirement {
  /** The rule cited: an R-number of docs/extension-spec.md, or a wire rule of issue 4. */
  readonly rule: string;
  /** Where the rule is written. */
  readonly source: string;
  /** One sentence of observable behavior. */
  readonly behavior: string;
  /** Arms the requirement applies to (all four when absent), with why. */
  readonly arms?: readonly Arm[];
  readonly armsNote?: string;
  /**
   * Reminder stores the requirement applies to (all three when absent), with
   * why; the other stores' projects do not collect the file (vitest.config.ts).
   */
  readonly stores?: readonly StoreParameter[];
  readonly storesNote?: string;
  readonly knownFailures?: readonly KnownFailure[];
  /**
   * Why the kit (issue 15) cannot check the rule from outside an agent, for
   * a rule none of whose cases can be driven through the test-agent
   * contract; the kit reports it as not observable with this reason.
   */
  readonly kitNote?: string;
}

const spec = (rule: string) => `docs/extension-spec.md#${rule.toLowerCase()}`;
const WIRE_ARMS: readonly Arm[] = ['jsonrpc', 'rest', 'grpc'];
const WIRE_NOTE = 'A wire-format rule: the direct arm has no wire.';
const REPLICA_STORES: readonly StoreParameter[] = ['postgres'];
const REPLICA_KIT_NOTE =
  'the case runs several replicas of one agent on a shared database; a kit outside the agent cannot start or stop its replicas';
const FORWARDING_KIT_NOTE =
  "the rule is about an agent forwarding reminders into its sub-tasks, which the test-agent contract cannot make the agent under test do (its side as a sub-task's agent is R58-R61's)";
const RENDERING_KIT_NOTE =
  "the rule is about the text the agent renders into its model's prompt, which the kit never sees: a turn's acknowledgement names its reminders, not their text";
const REPLICA_NOTE =
  'Replicas share one PostgreSQL database (spec: Multi-replica deployments); the memory store is one process and a SQLite file serves one worker.';
const FAULT_KIT_NOTE =
  "the case breaks the agent's own database connections (a proxy in front of its PostgreSQL server, a second connection locking its SQLite file), which a kit outside the agent cannot do";

/**
 * The requirements manifest: one entry per numbered rule of
 * docs/extension-spec.md (R1–R74) and one per wire rule (W1–W15).
 */
export const requirements = {
  'R1-extension-uri': {
    rule: 'R1',
    source: spec('R1'),
    behavior:
      'the extension URI keys the reminder metadata of status updates and extension error reasons use domain a2a-reminders.dev',
  },
  'R2-agent-card': {
    rule: 'R2',
    source: spec('R2'),
    behavior:
      'the served agent card lists the extension with required:false and params listing the limits, defaultTtlTurns, accepted states and events',
  },
  'R3-activation': {
    rule: 'R3',
    source: spec('R3'),
    behavior:
      'a request without the URI in A2A-Extensions is refused with EXTENSION_NOT_ACTIVATED; an activated one succeeds',
  },
  'R4-protocol-version': {
    rule: 'R4',
    source: spec('R4'),
    behavior:
      'an absent A2A-Version (0.3) or an unserved one is refused with VERSION_NOT_SUPPORTED; 1.0 is served',
  },
  'R5-authentication-and-order': {
    rule: 'R5',
    source: spec('R5'),
    behavior:
      'with authentication required an anonymous caller gets UNAUTHENTICATED before activation, validation and lookup are checked, and the checks report the first failure in order',
  },
  'R6-operations': {
    rule: 'R6',
    source: spec('R6'),
    behavior:
      'the three rpcs InjectTaskReminder, ListTaskReminders and CancelTaskReminder are served next to A2A on the same endpoints and answer with their response messages',
  },
  'R7-scoping': {
    rule: 'R7',
    source: spec('R7'),
    behavior:
      "a task of another user or tenant is TASK_NOT_FOUND with the same message and metadata as a missing task, while its owner's calls succeed",
  },
  'R8-validation-reporting': {
    rule: 'R8',
    source: spec('R8'),
    behavior:
      'every violation is reported at once as INVALID_ARGUMENT with ProtoJSON field paths, before the task lookup',
  },
  'R9-field-rules': {
    rule: 'R9',
    source: spec('R9'),
    behavior:
      'each field rule and limit is enforced without clamping, limits are service options, and records carry the effective ttlTurns',
  },
  'R46-text-fields': {
    rule: 'R46',
    source: spec('R46'),
    behavior:
      'control characters are refused in every string field (body keeps newline and tab), bidi and hidden-text characters in every field, every invisible or format character in the short fields, each as a violation on its path',
  },
  'R41-metadata-finite-numbers': {
    rule: 'R41',
    source: spec('R41'),
    behavior:
      'NaN or ±Infinity anywhere in metadata (JSON 1e309, binary doubles) is INVALID_ARGUMENT on its path, nothing is stored, an identical re-send is refused alike, and the task lists on every binding',
  },
  'R42-metadata-depth': {
    rule: 'R42',
    source: spec('R42'),
    behavior:
      'metadata nesting 32 levels is accepted; deeper, up to past either parser limit, is INVALID_ARGUMENT with a BadRequest violation on reminder.metadata',
  },
  'R43-protojson-strictness': {
    rule: 'R43',
    source: spec('R43'),
    behavior:
      'integer fields take JSON numbers or decimal strings only ("0x10", "+5", " 5" are refused) and lone surrogates are refused in metadata keys and values as in every string field',
    arms: ['direct', 'jsonrpc', 'rest'],
    armsNote:
      'Binary protobuf writes integers as varints and strings as UTF-8, which has no lone surrogates: neither can be sent over gRPC (a client encodes one as U+FFFD).',
  },
  'R44-stored-records-serialize': {
    rule: 'R44',
    source: spec('R44'),
    behavior:
      'every stored record lists with the same ProtoJSON on JSON-RPC, REST and gRPC and round-trips through ProtoJSON and binary; refused hostile values leave nothing behind',
  },
  'R45-order-of-checks-on-the-wire': {
    rule: 'R45',
    source: spec('R45'),
    behavior:
      'whatever the body (unreadable values, params or body not an object, a malformed path segment), an anonymous caller gets UNAUTHENTICATED, an unactivated one EXTENSION_NOT_ACTIVATED, and only then INVALID_ARGUMENT',
  },
  'R10-running-tasks-accept': {
    rule: 'R10',
    source: spec('R10'),
    behavior:
      'a WORKING task accepts a reminder, answering PENDING with taskState TASK_STATE_WORKING',
  },
  'R11-interrupted-tasks-hold': {
    rule: 'R11',
    source: spec('R11'),
    behavior:
      'INPUT_REQUIRED and AUTH_REQUIRED tasks accept reminders and hold them PENDING until turns run again',
  },
  'R12-terminal-tasks-refuse': {
    rule: 'R12',
    source: spec('R12'),
    behavior:
      'COMPLETED, FAILED, CANCELED and REJECTED tasks refuse with TASK_TERMINAL carrying taskId and taskState',
  },
  'R65-running-execution-status': {
    rule: 'R65',
    source: spec('R65'),
    behavior:
      "an inject sent right after the task's running execution published a new state (SUBMITTED, WORKING, INPUT_REQUIRED) answers with that state and is accepted PENDING, and in process an inject follows the running execution's WORKING where the stored task says INPUT_REQUIRED; that the task store is not read is core's own test (service-task-on-bus.test.ts)",
  },
  'R13-idempotent-resend': {
    rule: 'R13',
    source: spec('R13'),
    behavior:
      'an identical re-send returns the original response and changes nothing, also after the reminder surfaced and after the task ended',
  },
  'R14-id-conflict': {
    rule: 'R14',
    source: spec('R14'),
    behavior:
      'the same id with different content is REMINDER_ID_CONFLICT with a violation on reminder.id',
  },
  'R15-dedupe': {
    rule: 'R15',
    source: spec('R15'),
    behavior:
      'a reminder with a dedupeKey displaces every live reminder with that key, leaving one live per key; an empty key displaces nothing',
  },
  'R16-displacement-reported': {
    rule: 'R16',
    source: spec('R16'),
    behavior:
      'the response lists displaced ids, each becomes DISPLACED naming its successor, and one batch of displaced events is streamed',
  },
  'R17-quota': {
    rule: 'R17',
    source: spec('R17'),
    behavior:
      'beyond maxLiveRemindersPerTask an inject is REMINDER_QUOTA_EXCEEDED and nothing is evicted, while a displacing inject and final reminders do not count',
  },
  'R18-states': {
    rule: 'R18',
    source: spec('R18'),
    behavior:
      'every reminder ends in exactly one final state, announced by exactly one event, and final states never change',
  },
  'R19-turn-boundaries': {
    rule: 'R19',
    source: spec('R19'),
    behavior:
      'each boundary increments the 1-based turn and returns live reminders in acceptance order; injects concurrent with a boundary land in exactly one turn',
  },
  'R20-surfacing': {
    rule: 'R20',
    source: spec('R20'),
    behavior: 'a reminder is surfaced on ttlTurns consecutive turns starting at the next boundary',
  },
  'R21-emitted': {
    rule: 'R21',
    source: spec('R21'),
    behavior: 'the first surfacing streams emitted with the turn and the turns remaining after it',
  },
  'R22-expired': {
    rule: 'R22',
    source: spec('R22'),
    behavior:
      'after its last turn a reminder becomes EXPIRED at the next boundary with lastTurn, turnsSurfaced and taskEnded false',
  },
  'R23-cancel-live': {
    rule: 'R23',
    source: spec('R23'),
    behavior:
      'cancelling a live reminder makes it CANCELLED, streams cancelled with turnsSurfaced, and it is never surfaced again',
  },
  'R24-cancel-cancelled': {
    rule: 'R24',
    source: spec('R24'),
    behavior: 'cancelling a CANCELLED reminder returns its record unchanged and streams nothing',
  },
  'R25-cancel-not-live': {
    rule: 'R25',
    source: spec('R25'),
    behavior:
      'cancelling an EXPIRED, DISPLACED or DROPPED reminder is REMINDER_NOT_LIVE with taskId, reminderId and reminderState',
  },
  'R26-cancel-unknown': {
    rule: 'R26',
    source: spec('R26'),
    behavior:
      'cancelling an id the task does not have is REMINDER_NOT_FOUND with taskId and reminderId',
  },
  'R27-task-end': {
    rule: 'R27',
    source: spec('R27'),
    behavior:
      'at task end pending reminders are DROPPED with the terminal state and surfaced ones EXPIRED with taskEnded, streamed before the terminal status update',
  },
  'R28-executor-wrapper': {
    rule: 'R28',
    source: spec('R28'),
    behavior:
      'terminal events from execute and from cancelTask (a stock CancelTask) wait for the reminders to end, so the fates precede the terminal status on the stream',
  },
  'R29-reconciliation': {
    rule: 'R29',
    source: spec('R29'),
    behavior: 'a task stored terminal while its reminders are live has them ended at the next rpc',
  },
  'R30-status-updates': {
    rule: 'R30',
    source: spec('R30'),
    behavior:
      'each batch travels as one status update repeating the current status, its batch under the extension URI in metadata',
  },
  'R31-no-reverted-states': {
    rule: 'R31',
    source: spec('R31'),
    behavior:
      'a reminder status update copies the latest published state, never reverting a newer one',
  },
  'R32-no-stream': {
    rule: 'R32',
    source: spec('R32'),
    behavior:
      'when no event stream is open the effects are recorded and listable though nothing is streamed',
  },
  'R33-forward-compatibility': {
    rule: 'R33',
    source: spec('R33'),
    behavior:
      'readers of stream items ignore unknown fields, unknown event members and status updates without reminder metadata',
  },
  'R50-status-message-kept': {
    rule: 'R50',
    source: spec('R50'),
    behavior:
      "after any reminder event GetTask and ListTasks show the agent's last status, message and timestamp, and the history a task without reminders has; streams tell reminder updates from status changes",
  },
  'R34-listing': {
    rule: 'R34',
    source: spec('R34'),
    behavior:
      'ListTaskReminders returns every record in acceptance order with state, times, firstTurn, turnsRemaining and displacedBy',
  },
  'R35-retention': {
    rule: 'R35',
    source: spec('R35'),
    behavior: 'records stay listable for retentionMs after the task ended and are gone afterwards',
  },
  'R48-retained-finals-cap': {
    rule: 'R48',
    source: spec('R48'),
    behavior:
      'a task keeps at most maxRetainedFinalRemindersPerTask final records, purging the earliest to become final and never a live one; a purged id is unknown again (a re-send is a new reminder, a cancel is REMINDER_NOT_FOUND)',
  },
  'R49-list-pages': {
    rule: 'R49',
    source: spec('R49'),
    behavior:
      'ListTaskReminders pages by pageSize (default 50, 1..100) and opaque pageToken, with an empty nextPageToken on the last page and tokens that survive purges; liveOnly lists live records only; a bad pageSize or pageToken is INVALID_ARGUMENT on that field',
  },
  'R36-text-blocks': {
    rule: 'R36',
    kitNote: RENDERING_KIT_NOTE,
    source: spec('R36'),
    behavior:
      'a surfaced reminder renders as a system-reminder block naming its source, with framing tags in body and source neutralized',
  },
  'R47-framing-not-forgeable': {
    rule: 'R47',
    kitNote: RENDERING_KIT_NOTE,
    source: spec('R47'),
    behavior:
      'framing tags spelled with look-alike or invisible characters are neutralized, each block holds exactly one opening and one closing tag as a model reads them, and source escaping is one-to-one',
  },
  'R37-chat-roles': {
    rule: 'R37',
    kitNote: RENDERING_KIT_NOTE,
    source: spec('R37'),
    behavior:
      'chat rendering honors roleHint where the runtime has the role, falls back to system then developer, and never uses the user role',
  },
  'R38-ephemeral': {
    rule: 'R38',
    source: spec('R38'),
    behavior: "reminder bodies never enter the task's history",
  },
  'R39-error-table': {
    rule: 'R39',
    source: spec('R39'),
    behavior:
      "each error code has its binding's JSON-RPC code, gRPC status or HTTP status exactly as the table gives",
    arms: WIRE_ARMS,
    armsNote: WIRE_NOTE,
  },
  'R40-error-details': {
    rule: 'R40',
    source: spec('R40'),
    behavior:
      'errors carry the A2A ErrorInfo, then the extension ErrorInfo, then BadRequest, and clients rebuild the same typed error',
  },
  'W1-jsonrpc-method-names': {
    rule: 'W1',
    source: spec('W1'),
    behavior:
      "JSON-RPC method names are the descriptor's rpc names and every other method passes through to the SDK untouched",
    arms: ['jsonrpc'],
    armsNote: 'Only the JSON-RPC binding has method names.',
  },
  'W2-rest-routes': {
    rule: 'W2',
    source: spec('W2'),
    behavior:
      "REST routes and their /{tenant} forms are the descriptor's google.api.http rules, and the tenant comes from the path",
    arms: ['rest'],
    armsNote: 'Only the REST binding has routes.',
  },
  'R56-rest-path-and-body-agree': {
    rule: 'R56',
    source: spec('R56'),
    behavior:
      'a REST body or query giving taskId (or a cancel its reminderId) a value other than the path is INVALID_ARGUMENT on that field, after authentication and activation; the same value or none is served',
    arms: ['rest'],
    armsNote: 'Only the REST binding has a path that binds request fields.',
  },
  'W3-bad-input-envelopes': {
    rule: 'W3',
    source: spec('W3'),
    behavior:
      "malformed JSON, an oversized body, a wrong content type and undecodable bytes each get the binding's standard error and the server keeps serving",
    arms: WIRE_ARMS,
    armsNote: `${WIRE_NOTE} gRPC has no JSON or content type to get wrong; it is checked with undecodable bytes.`,
  },
  'W4-events-on-every-stream': {
    rule: 'W4',
    source: spec('W4'),
    behavior:
      'reminder events reach every open SubscribeToTask and SendStreamingMessage stream of the task as status updates',
  },
  'W5-stock-client-unaffected': {
    rule: 'W5',
    source: spec('W5'),
    behavior:
      'a stock SDK client that knows nothing of reminders keeps working: GetTask, CancelTask, streams and follow-up messages behave as without the extension',
  },
  'W6-client-headers': {
    rule: 'W6',
    source: spec('W6'),
    behavior:
      'our clients send A2A-Version 1.0 and the extension in A2A-Extensions by themselves, plus the configured and per-call headers; extensions the caller activates, in any spelling, client-wide and per call, are all kept and the call is activated',
    arms: WIRE_ARMS,
    armsNote:
      'Observed on the server side of a wire; the direct arm builds the same headers in process.',
  },
  'W7-caller-resolution': {
    rule: 'W7',
    source: spec('W7'),
    behavior:
      "the caller resolves exactly as the SDK's on the binding: the user builder's user and the request's tenant scope the task, so reminders reach only tasks the caller can GetTask",
  },
  'W8-transport-equivalence': {
    rule: 'W8',
    source: spec('W8'),
    behavior:
      'one script of injects, cancels, turns and task end gives the same responses, error codes and event sequences on every arm as on direct',
  },
  'W9-client-options': {
    rule: 'W9',
    source: spec('W9'),
    behavior: 'every client takes an abort signal that rejects the call and leaves nothing changed',
  },
  'W10-cross-stack': {
    rule: 'W10',
    source: spec('W10'),
    behavior:
      'a stock SDK client on each of the three bindings sees the events of reminders injected over this arm; our Connect client talks to the grpc-js server on the grpc arm (the Python gRPC client is covered by packages/grpc/src/python-interop.test.ts)',
  },
  'W11-jsonrpc-notifications': {
    rule: 'W11',
    source: spec('W11'),
    behavior:
      'a reminder call without an id is performed and answered with HTTP 204 and no body, whether it succeeds or fails',
    arms: ['jsonrpc'],
    armsNote: 'Only JSON-RPC has notifications.',
  },
  'W12-one-body-limit': {
    rule: 'W12',
    source: spec('W12'),
    behavior:
      "a reminder request over the binding's limit is refused on its byte count before it is decoded or any other check runs, with a message quoting the limit that refused it; the SDK's own JSON-RPC methods keep their 100 kB",
    arms: WIRE_ARMS,
    armsNote: WIRE_NOTE,
  },
  'W13-json-errors-only': {
    rule: 'W13',
    source: spec('W13'),
    behavior:
      "every error answer on a binding's HTTP path is JSON in the binding's shape (JSON-RPC error object, google.rpc.Status), never HTML, a stack trace or a file path",
    arms: ['jsonrpc', 'rest'],
    armsNote:
      'An HTTP rule: gRPC errors are a status and trailers, with no body to be HTML; the direct arm has no wire.',
  },
  'R51-held-events-bounded': {
    rule: 'R51',
    source: spec('R51'),
    behavior:
      'events held while a task waits are bounded by maxLiveRemindersPerTask + maxRetainedFinalRemindersPerTask, the oldest dropped, and the newest delivered once the task resumes',
  },
  'R57-displacement-delay': {
    rule: 'R57',
    source: spec('R57'),
    behavior:
      'the displaced events of several injects wait on the task and reach every stream as one batch, when the delay passes or before anything else is published on the task (a boundary, a status change, the task end), while the responses and List name every displacement at once',
  },
  'R66-batches-off-stored-task': {
    rule: 'R66',
    source: spec('R66'),
    behavior:
      'while streams carry every reminder batch, GetTask and ListTasks return the task without a batch under the extension URI, during the task and after it ended',
  },
  'R67-default-displacement-delay': {
    rule: 'R67',
    source: spec('R67'),
    behavior:
      'with the default delay, displaced events on a task where nothing else happens reach the stream as one batch no sooner than 10 s after the inject',
    arms: ['direct'],
    armsNote:
      "The delay is the service's, before any binding; R57's cases see the batch on every binding's stream.",
    kitNote:
      "the delay is an agent's setting (R57), which its card does not state; 10 s is this implementation's default",
  },
  'R52-replica-delivery': {
    rule: 'R52',
    source: spec('R52'),
    behavior:
      "event batches committed on either of two replicas sharing one PostgreSQL database (injects on the other replica, this replica's own injects and turns) reach the open stream on the replica running the task exactly once each, in the order of the task's event log",
    stores: REPLICA_STORES,
    kitNote: REPLICA_KIT_NOTE,
    storesNote: REPLICA_NOTE,
  },
  'R53-task-leases': {
    rule: 'R53',
    source: spec('R53'),
    behavior:
      "a live replica's task is not reaped; once that replica stops heartbeating its lease expires and the other replica ends the task FAILED with the reason in its status message, its reminders ended first (DROPPED, EXPIRED with taskEnded) and listed the same on both",
    stores: REPLICA_STORES,
    kitNote: REPLICA_KIT_NOTE,
    storesNote: REPLICA_NOTE,
  },
  'R54-replica-catch-up': {
    rule: 'R54',
    source: spec('R54'),
    behavior:
      "events committed on the other replica while the running replica's LISTEN connection was cut reach its stream once it listens again, before and in order with later ones",
    stores: REPLICA_STORES,
    kitNote: REPLICA_KIT_NOTE,
    storesNote: REPLICA_NOTE,
  },
  'R55-same-answers-on-every-replica': {
    rule: 'R55',
    source: spec('R55'),
    behavior:
      'InjectTaskReminder (replays, conflicts, displacement), ListTaskReminders and CancelTaskReminder answer the same on both replicas, whichever replica runs the task, before and after it ends',
    stores: REPLICA_STORES,
    kitNote: REPLICA_KIT_NOTE,
    storesNote: REPLICA_NOTE,
  },
  'R69-store-unavailable': {
    rule: 'R69',
    source: spec('R69'),
    behavior:
      "with the reminder store's PostgreSQL connections black-holed, InjectTaskReminder, CancelTaskReminder and ListTaskReminders answer UNAVAILABLE, and with its SQLite file write-locked by another connection past the busy timeout the inject and the cancel do (the list still reads), never INTERNAL and without hanging, with the table's wire code, the extension's ErrorInfo and Retry-After: 1 on both HTTP bindings, while the server keeps serving; once the fault is gone the same calls succeed and the resent inject is stored once; on SQLite a call waiting for the lock blocks no other call and goes through once the lock is released within the busy timeout",
    stores: ['sqlite', 'postgres'],
    storesNote:
      'The in-memory store has no connection or file that can fail: it is never unavailable.',
    kitNote: FAULT_KIT_NOTE,
  },
  'R70-dead-connections': {
    rule: 'R70',
    source: spec('R70'),
    behavior:
      "a reminder store connection reset, or whose backend is ended, in the middle of an inject's transaction ends no process: the inject, whose commit was never sent, is run again once on a fresh connection and stored once, and the next calls are served on new connections; a black-holed (half-open) connection fails the call with UNAVAILABLE within the statement deadline, its connection is closed, the server ends the transaction it left open, and once healed a fresh connection serves",
    stores: ['postgres'],
    storesNote:
      "The rule is about PostgreSQL's pooled connections; a SQLite store has a file and the memory store nothing to connect to.",
    kitNote: FAULT_KIT_NOTE,
  },
  'R71-lease-fencing': {
    rule: 'R71',
    source: spec('R71'),
    behavior:
      "a replica whose heartbeats no longer reach the database stops owning its running task: its execution is told, its saves of the task are refused and not stored, the other replica ends the task FAILED with its reminders ended, and the first replica's late statuses never overwrite FAILED; a replica stalled past its lease has its first save refused and its lease moved to a name no heartbeat renews, which a reaper claims; a last status saved while the execution hands its lease over is stored",
    stores: REPLICA_STORES,
    kitNote: REPLICA_KIT_NOTE,
    storesNote: REPLICA_NOTE,
  },
  'R72-unsaved-last-status': {
    rule: 'R72',
    source: spec('R72'),
    behavior:
      "a task save that fails for the store's sake a few times is retried until it is stored; an execution whose last status cannot be stored leaves its handed-over lease renewed while the task is stored WORKING, and then a reaper ends the task FAILED with the UNSAVED reason, its reminders ended (EXPIRED with taskEnded, DROPPED) and its lease released",
    stores: REPLICA_STORES,
    kitNote: REPLICA_KIT_NOTE,
    storesNote: REPLICA_NOTE,
  },
  'R73-clean-stop': {
    rule: 'R73',
    source: spec('R73'),
    behavior:
      "a replica stopped cleanly (its running executions cancelled, its lease keeper drained, then closed) leaves its running task stored CANCELED, its reminders' fates stored and listed the same on the other replica, and no lease row",
    stores: REPLICA_STORES,
    kitNote: REPLICA_KIT_NOTE,
    storesNote: REPLICA_NOTE,
  },
  'R74-one-loop-per-task': {
    rule: 'R74',
    source: spec('R74'),
    behavior:
      "a SendMessage or SendMessageStream for a task running on another replica is refused with A2A's UnsupportedOperationError (reason UNSUPPORTED_OPERATION, metadata taskId, a message saying it runs on another replica) and starts no execution there, while a follow-up for a task waiting in INPUT_REQUIRED runs on the replica it reaches",
    stores: REPLICA_STORES,
    kitNote: REPLICA_KIT_NOTE,
    storesNote: REPLICA_NOTE,
  },
  'R58-provenance': {
    rule: 'R58',
    source: spec('R58'),
    behavior:
      "a reminder's provenance comes back unchanged in the inject answer and ListTaskReminders on every binding; a forwarded copy is the original's content under its id, with the turns it has left, the source chosen and the original's hops plus one naming its task",
  },
  'R59-provenance-validated': {
    rule: 'R59',
    source: spec('R59'),
    behavior:
      'provenance without hops, a hop with a blank, long or unprintable taskId, a malformed reminderId or a long or unprintable source is INVALID_ARGUMENT on the hop field, with the other violations and before R61; past maxForwardHops the hops are not checked one by one and R60 answers in one violation; a re-send is idempotent only with the same provenance',
  },
  'R60-forward-hop-limit': {
    rule: 'R60',
    source: spec('R60'),
    behavior:
      'the card advertises maxForwardHops; more hops are FORWARD_HOP_LIMIT_EXCEEDED with taskId, hops and limit and a violation on reminder.provenance.hops, after validation and before the task lookup, while exactly the limit is accepted and a limit of 0 refuses every copy',
  },
  'R61-forward-loop': {
    rule: 'R61',
    source: spec('R61'),
    behavior:
      'provenance naming the receiving task is FORWARD_LOOP with taskId and the first such hop and a violation on its taskId, before the task lookup and after R60',
  },
  'R62-what-is-forwarded': {
    rule: 'R62',
    kitNote: FORWARDING_KIT_NOTE,
    source: spec('R62'),
    behavior:
      "a forwarding into a sub-task on the arm's agent sends each live reminder its filter passes once, those live at its start and each accepted while it runs, at once; final ones and those the filter keeps back are not sent, and the filter is asked once per reminder",
  },
  'R63-fates-follow': {
    rule: 'R63',
    kitNote: FORWARDING_KIT_NOTE,
    source: spec('R63'),
    behavior:
      "cancelling or displacing the original reaches its copies on the arm's agent, expiry does not, and the original's record lists each copy per sub-task with its state or refusal code, each change published as a forward event in a batch of its own",
  },
  'R64-forwarder-learns': {
    rule: 'R64',
    kitNote: FORWARDING_KIT_NOTE,
    source: spec('R64'),
    behavior:
      "the forwarder learns a copy's state from the sub-task's stream items handed to it on the arm's binding and, at close, from ListTaskReminders on the sub-task, a fate after close is not learned, and with replicas it finds what another replica accepted or cancelled in the store",
  },
  'R68-unknown-copies-follow': {
    rule: 'R68',
    kitNote: FORWARDING_KIT_NOTE,
    source: spec('R68'),
    behavior:
      "a copy whose inject answer was lost but which arrived on the arm's agent is cancelled there when its original is cancelled or displaced by a reminder not forwarded, the original's entry taking its final state; a cancel answered REMINDER_NOT_FOUND is not repeated, and a copy that arrives after it is cancelled at close",
  },
  'W15-grpc-transport-errors': {
    rule: 'W15',
    source: spec('W15'),
    behavior:
      "a gRPC request with a grpc-timeout that does not parse gets the gRPC runtime's own INTERNAL answer, the same as A2A's own service, and the server keeps serving",
    arms: ['grpc'],
    armsNote: 'A gRPC transport rule.',
  },
} as const satisfies Record<string, Requirement>;

export type RequirementId = keyof typeof requirements;

export const requirementIds = Object.keys(requirements) as RequirementId[];
