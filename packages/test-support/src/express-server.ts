import type { AddressInfo } from 'node:net';
import type { User } from '@a2a-js/sdk/server';
import type { Express, Request } from 'express';

/** A user named by the `x-user` header, authenticated when present. */
export async function headerUserBuilder(req: Request): Promise<User> {
  const name = req.header('x-user') ?? '';
  return { isAuthenticated: name !== '', userName: name };
}

/** Listens on 127.0.0.1 port 0; `close` ends open connections too. */
export async function listen(app: Express): Promise<{ url: string; close: () => Promise<void> }> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
