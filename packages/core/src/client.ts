import type {
  CancelTaskReminderRequestSchema,
  CancelTaskReminderResponse,
  InjectTaskReminderRequestSchema,
  InjectTaskReminderResponse,
  ListTaskRemindersRequestSchema,
  ListTaskRemindersResponse,
} from '@a2a-reminders/proto';
import type { MessageInitShape } from '@bufbuild/protobuf';

/** Per-call options, the same on every binding. */
export interface ReminderCallOptions {
  /** Aborts the call; the promise rejects with the signal's reason. */
  readonly signal?: AbortSignal;
  /** Extra HTTP headers (JSON-RPC, REST) or gRPC metadata for this call, e.g. `authorization`. */
  readonly headers?: Readonly<Record<string, string>>;
}

/** Options every binding's client takes. */
export interface ReminderClientOptions {
  /**
   * Where the binding is served: the JSON-RPC endpoint URL, the REST base URL
   * (the `HTTP+JSON` interface URL of the agent card), or the gRPC address as
   * `http://host:port`.
   */
  readonly baseUrl: string;
  /** Headers or metadata sent with every call (auth); per-call headers win. */
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * One client interface for the three bindings. Every client sends
 * `A2A-Version: 1.0` and activates the extension in `A2A-Extensions` itself,
 * and turns wire errors back into the same typed {@link ReminderError}.
 */
export interface ReminderClient {
  injectTaskReminder(
    request: MessageInitShape<typeof InjectTaskReminderRequestSchema>,
    options?: ReminderCallOptions,
  ): Promise<InjectTaskReminderResponse>;
  /**
   * One page of the task's retained records (R49): `pageSize` (1–100, default
   * 50), `pageToken` (the previous page's `nextPageToken`) and `liveOnly`
   * travel as request fields (REST: query parameters). An empty
   * `nextPageToken` marks the last page; {@link reminderPages} follows them all.
   */
  listTaskReminders(
    request: MessageInitShape<typeof ListTaskRemindersRequestSchema>,
    options?: ReminderCallOptions,
  ): Promise<ListTaskRemindersResponse>;
  cancelTaskReminder(
    request: MessageInitShape<typeof CancelTaskReminderRequestSchema>,
    options?: ReminderCallOptions,
  ): Promise<CancelTaskReminderResponse>;
}

/**
 * Every page of a task's reminders, first to last (R49): follows
 * `nextPageToken` until it is empty. A `pageToken` in the request starts
 * the walk there.
 */
export async function* reminderPages(
  client: Pick<ReminderClient, 'listTaskReminders'>,
  request: MessageInitShape<typeof ListTaskRemindersRequestSchema>,
  options?: ReminderCallOptions,
): AsyncGenerator<ListTaskRemindersResponse, void, undefined> {
  let pageToken = request.pageToken ?? '';
  do {
    const page = await client.listTaskReminders({ ...request, pageToken }, options);
    yield page;
    pageToken = page.nextPageToken;
  } while (pageToken !== '');
}
