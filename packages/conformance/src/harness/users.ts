import type { User } from '@a2a-js/sdk/server';
import { UnauthenticatedUser } from '@a2a-js/sdk/server';
import type { UserBuilder as ExpressUserBuilder } from '@a2a-js/sdk/server/express';
import type { UserBuilder as GrpcUserBuilder } from '@a2a-js/sdk/server/grpc';

/**
 * Callers in the suite: `authorization: Bearer <name>` names an
 * authenticated user on every binding; no header is the SDK's anonymous
 * user. One rule for all arms, so the same caller resolves to the same
 * owner scope on each (W7).
 */
export function userFromAuthorization(value: string | undefined): User {
  const name = /^Bearer (\S+)$/.exec(value ?? '')?.[1];
  return name === undefined ? new UnauthenticatedUser() : { isAuthenticated: true, userName: name };
}

export const expressUserBuilder: ExpressUserBuilder = async (req) =>
  userFromAuthorization(req.header('authorization'));

export const grpcUserBuilder: GrpcUserBuilder = async (call) =>
  userFromAuthorization(call.metadata.get('authorization')[0]?.toString());

/** Request headers / service parameters that make a stock or reminder client act as `name`. */
export function as(name: string): Record<string, string> {
  return { authorization: `Bearer ${name}` };
}
