import type { AgentCard } from '@a2a-js/sdk';
import {
  findAgentInterface,
  PROTOCOL_BINDING_OF,
  TASK_REMINDERS_EXTENSION_URI,
} from '@a2a-reminders/core';
import type { KitBinding } from './kit-meta.js';
import { KIT_BINDINGS } from './kit-meta.js';

/** A card the kit cannot run against; the CLI prints the message and exits 2. */
export class CardCheckError extends Error {
  override readonly name = 'CardCheckError';
}

/** What the card says that the run needs. */
export interface CardCheck {
  /** The agent's name, for the report's header. */
  readonly agentName: string;
  /** The bindings the card serves, of the three the kit knows. */
  readonly served: readonly KitBinding[];
  /** The bindings to check: the asked ones the card serves (all it serves when none were asked). */
  readonly bindings: readonly KitBinding[];
  /** Asked bindings the card does not serve: they are not checked, and the CLI says so. */
  readonly notServed: readonly KitBinding[];
}

export interface CardCheckOptions {
  /** The bindings asked for; all three when absent. */
  readonly bindings?: readonly KitBinding[];
  /** Sent with the card request too: an agent behind an authenticating proxy guards its card. */
  readonly headers?: Readonly<Record<string, string>>;
  readonly timeoutMs?: number;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function causeOf(error: unknown): string {
  if (error instanceof Error && error.name === 'TimeoutError') return 'no answer in time';
  // undici's "fetch failed" hides the reason (ECONNREFUSED, ENOTFOUND, …) in its cause.
  const cause = error instanceof Error ? error.cause : undefined;
  const inner = cause instanceof Error ? cause.message : undefined;
  const outer = error instanceof Error ? error.message : String(error);
  return inner === undefined ? outer : `${outer}: ${inner}`;
}

async function readCard(
  cardUrl: string,
  headers: Readonly<Record<string, string>>,
  timeoutMs: number,
): Promise<unknown> {
  let url: URL;
  try {
    url = new URL(cardUrl);
  } catch {
    throw new CardCheckError(`--card-url is not a URL: ${cardUrl}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new CardCheckError(`--card-url must be an http or https URL, got ${cardUrl}`);
  }
  let response: Response;
  try {
    response = await fetch(url, {
      headers: { accept: 'application/json', ...headers },
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    throw new CardCheckError(`cannot read the agent card at ${cardUrl}: ${causeOf(error)}`);
  }
  if (!response.ok) {
    throw new CardCheckError(
      `cannot read the agent card at ${cardUrl}: it answered HTTP ${response.status}`,
    );
  }
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch {
    const type = response.headers.get('content-type') ?? 'no content type';
    throw new CardCheckError(
      `the agent card at ${cardUrl} is not JSON (${type}): ${JSON.stringify(text.slice(0, 80))}`,
    );
  }
}

/** The card's interfaces, or why it is not an A2A 1.0 agent card. */
function interfacesOf(card: unknown, cardUrl: string): { name: string; protocols: string[] } {
  const notACard = (why: string) =>
    new CardCheckError(`${cardUrl} does not hold an A2A agent card: ${why}`);
  if (!isRecord(card)) throw notACard('the JSON is not an object');
  if (typeof card.name !== 'string') throw notACard('it has no "name"');
  if (!Array.isArray(card.supportedInterfaces)) {
    if (typeof card.preferredTransport === 'string' || typeof card.url === 'string') {
      throw notACard(
        'it has no "supportedInterfaces" and looks like an A2A 0.3 card (url, preferredTransport); the kit checks A2A 1.0 agents',
      );
    }
    throw notACard('it has no "supportedInterfaces"');
  }
  const protocols = card.supportedInterfaces.map((entry: unknown) =>
    isRecord(entry) && typeof entry.protocolBinding === 'string' && typeof entry.url === 'string'
      ? entry.protocolBinding
      : undefined,
  );
  if (protocols.includes(undefined)) {
    throw notACard('an entry of "supportedInterfaces" has no "url" or "protocolBinding"');
  }
  return { name: card.name, protocols: protocols as string[] };
}

function extensionUris(card: Record<string, unknown>): string[] {
  const capabilities = card.capabilities;
  const extensions = isRecord(capabilities) ? capabilities.extensions : undefined;
  if (!Array.isArray(extensions)) return [];
  return extensions.flatMap((e: unknown) =>
    isRecord(e) && typeof e.uri === 'string' ? [e.uri] : [],
  );
}

/**
 * Reads the card at `cardUrl` (as given: no well-known path is added) and
 * checks what a run needs before any case starts: it is an A2A 1.0 agent
 * card, it lists the task-reminders extension in capabilities.extensions,
 * and it serves at least one of the asked bindings. Throws CardCheckError,
 * with a message for a person, otherwise.
 */
export async function checkAgentCard(
  cardUrl: string,
  options: CardCheckOptions = {},
): Promise<CardCheck> {
  const card = await readCard(cardUrl, options.headers ?? {}, options.timeoutMs ?? 15_000);
  const { name, protocols } = interfacesOf(card, cardUrl);
  const uris = extensionUris(card as Record<string, unknown>);
  if (!uris.includes(TASK_REMINDERS_EXTENSION_URI)) {
    throw new CardCheckError(
      `the agent card at ${cardUrl} does not list the extension ${TASK_REMINDERS_EXTENSION_URI} in capabilities.extensions (it lists ${uris.length === 0 ? 'none' : uris.join(', ')})`,
    );
  }
  // As the kit's clients pick an interface: the binding's name in any case, at A2A 1.0.
  const served = KIT_BINDINGS.filter(
    (b) => findAgentInterface(card as unknown as AgentCard, b) !== undefined,
  );
  const asked = options.bindings ?? KIT_BINDINGS;
  const bindings = KIT_BINDINGS.filter((b) => asked.includes(b) && served.includes(b));
  if (bindings.length === 0) {
    const listed = protocols.length === 0 ? 'no interface' : protocols.join(', ');
    const wanted = asked.map((b) => `${b} (${PROTOCOL_BINDING_OF[b]})`).join(', ');
    throw new CardCheckError(
      `the agent card at ${cardUrl} serves none of the bindings asked for at A2A 1.0: asked ${wanted}; it lists ${listed}`,
    );
  }
  return {
    agentName: name,
    served,
    bindings,
    notServed: KIT_BINDINGS.filter((b) => asked.includes(b) && !served.includes(b)),
  };
}
