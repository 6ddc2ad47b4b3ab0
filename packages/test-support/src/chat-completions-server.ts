import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One chat-completions message as the wire carries it. */
export interface WireChatMessage {
  readonly role: string;
  readonly content?:
    | string
    | null
    | ReadonlyArray<{ readonly type: string; readonly text?: string }>;
  readonly tool_calls?: ReadonlyArray<{ readonly function: { readonly name: string } }>;
}

/** One request the server received, as sent. */
export interface RecordedChatRequest {
  readonly authorization: string | undefined;
  readonly body: {
    readonly model: string;
    readonly stream?: boolean;
    readonly messages: readonly WireChatMessage[];
    readonly tools?: ReadonlyArray<{ readonly function: { readonly name: string } }>;
    readonly tool_choice?: unknown;
  };
}

/** The text of a wire message, parts joined. */
export function wireText(message: WireChatMessage): string {
  const { content } = message;
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  return content.map((p) => p.text ?? '').join('\n');
}

/**
 * A local OpenAI-compatible endpoint (POST /v1/chat/completions, no
 * streaming) that records every request and answers each with one tool call:
 * `test` while the loop goes on, and the tool a request requires
 * (`tool_choice`). A task's first request can be held until the test lets
 * it go, so the test can act while that turn is in progress.
 */
export class ChatCompletionsServer {
  readonly requests: RecordedChatRequest[] = [];
  readonly #held = new Map<string, { arrived: () => void; release?: () => void }>();
  readonly #server: Server;

  private constructor(server: Server) {
    this.#server = server;
  }

  static async start(): Promise<ChatCompletionsServer> {
    let self: ChatCompletionsServer | undefined;
    const server = createServer((req, res) => {
      void self?.handle(req, res);
    });
    self = new ChatCompletionsServer(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return self;
  }

  /** The base URL to pass as `--model-url`. */
  get baseUrl(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/v1`;
  }

  /**
   * Holds the first request of the task whose user message is `taskText`;
   * resolves once it arrived. Answer it with {@link release}.
   */
  firstTurnOf(taskText: string): Promise<void> {
    return new Promise((arrived) => this.#held.set(taskText, { arrived }));
  }

  /** Answers the held first request of the task. */
  release(taskText: string): void {
    this.#held.get(taskText)?.release?.();
  }

  /** The requests of the task whose user message is `taskText`, in order. */
  requestsOf(taskText: string): RecordedChatRequest[] {
    return this.requests.filter((r) =>
      r.body.messages.some((m) => m.role === 'user' && wireText(m) === taskText),
    );
  }

  async close(): Promise<void> {
    for (const held of this.#held.values()) held.release?.();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as RecordedChatRequest['body'];
    this.requests.push({ authorization: req.headers.authorization, body });
    if (body.stream === true) {
      res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"no streaming"}');
      return;
    }
    const taskText = wireText(body.messages.find((m) => m.role === 'user') ?? { role: 'user' });
    const turn = body.messages.filter((m) => m.role === 'assistant').length + 1;
    const held = this.#held.get(taskText);
    if (held !== undefined && turn === 1) {
      await new Promise<void>((release) => {
        held.release = release;
        held.arrived();
      });
    }
    const required = (body.tool_choice as { function?: { name?: string } } | undefined)?.function
      ?.name;
    const name = required ?? 'test';
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        id: `chatcmpl-${this.requests.length}`,
        object: 'chat.completion',
        created: 1_760_000_000,
        model: body.model,
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: null,
              tool_calls: [
                {
                  id: `call-${this.requests.length}`,
                  type: 'function',
                  function: {
                    name,
                    arguments: JSON.stringify({ summary: `${name} on turn ${turn}` }),
                  },
                },
              ],
            },
            finish_reason: 'tool_calls',
          },
        ],
        usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
      }),
    );
  }
}
