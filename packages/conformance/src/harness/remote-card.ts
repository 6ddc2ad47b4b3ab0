import type { AgentCard } from '@a2a-js/sdk';
import { DefaultAgentCardResolver } from '@a2a-js/sdk/client';
import { notObservable } from './not-observable.js';

/**
 * The agent under test's card, fetched from exactly the URL the kit was
 * given, with the kit's headers (a card behind authentication), read by the
 * SDK's resolver as its clients read it.
 */
export function fetchCardAsGiven(
  cardUrl: string,
  headers: Readonly<Record<string, string>>,
): Promise<AgentCard> {
  const resolver = new DefaultAgentCardResolver({
    fetchImpl: (input, init) =>
      fetch(input, { ...init, headers: { ...headersOf(init?.headers), ...headers } }),
  });
  return resolver.resolve(cardUrl, new URL(cardUrl).href);
}

function headersOf(init: ConstructorParameters<typeof Headers>[0]): Record<string, string> {
  return Object.fromEntries(new Headers(init).entries());
}

/**
 * The card with its gRPC addresses as `host:port`, the form grpc-js dials:
 * a card may list one as `grpc://` or `http://` (plaintext). A TLS address
 * (`https://`, `grpcs://`) is not observable: the kit dials plaintext only.
 * Cases on the other bindings get the card as served.
 */
export function withPlainGrpcAddresses(card: AgentCard, binding: string): AgentCard {
  if (binding !== 'grpc') return card;
  return {
    ...card,
    supportedInterfaces: card.supportedInterfaces.map((iface) => {
      if (iface.protocolBinding.toUpperCase() !== 'GRPC') return iface;
      const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(iface.url)?.[1]?.toLowerCase();
      if (scheme === 'https' || scheme === 'grpcs') {
        notObservable(
          `the card's gRPC interface ${iface.url} uses TLS; the kit dials plaintext only`,
        );
      }
      return scheme === undefined ? iface : { ...iface, url: iface.url.slice(scheme.length + 3) };
    }),
  };
}
