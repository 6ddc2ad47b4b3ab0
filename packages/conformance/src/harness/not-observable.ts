/**
 * Thrown by a kit case that needs what only the in-process suite has (the
 * agent's own stack, a configured limit, named users): the kit reports the
 * case as not observable from outside, with this reason, instead of failing
 * it (issue 15).
 */
export class NotObservable extends Error {
  override readonly name = 'NotObservable';

  constructor(readonly reason: string) {
    super(`not observable from outside the agent: ${reason}`);
  }
}

export function notObservable(reason: string): never {
  throw new NotObservable(reason);
}
