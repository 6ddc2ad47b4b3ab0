import type { Socket } from 'node:net';
import { connect, createServer } from 'node:net';

/** Which connections a fault applies to: without `applicationName`, all of them. */
export interface ProxyFilter {
  readonly applicationName?: string;
}

/**
 * `startup`: the client's startup message is not complete yet (nothing sent
 * to the server but an SSL or GSS request). `forwarding`: bytes flow both
 * ways. `black-holed`: both sockets open, nothing forwarded either way.
 */
export type ProxyConnectionState = 'startup' | 'forwarding' | 'black-holed';

export interface ProxyConnection {
  readonly id: number;
  readonly state: ProxyConnectionState;
  /** From the startup message; absent when the client set none or sent no readable one. */
  readonly applicationName?: string;
  readonly user?: string;
  readonly database?: string;
  readonly bytesToServer: number;
  readonly bytesToClient: number;
  /** Bytes either side sent that the black hole swallowed. */
  readonly bytesDropped: number;
}

export interface TcpProxyOptions {
  readonly targetPort: number;
  readonly targetHost?: string;
}

/** A loopback TCP proxy in front of PostgreSQL that can break its connections on demand. */
export interface TcpProxy {
  readonly host: '127.0.0.1';
  readonly port: number;
  /** `postgres://<user>@127.0.0.1:<proxy port>/<database>`. */
  url(database?: string, user?: string): string;
  /**
   * Resets every open connection that matches (both sockets, with RST):
   * its client sees a connection error. Returns how many it cut.
   */
  cut(filter?: ProxyFilter): number;
  /**
   * Stops forwarding on every open connection that matches, keeping both
   * sockets open (a half-open connection), and black-holes new matching
   * connections, never connecting them to the server, until `heal()`.
   * Returns how many open connections it black-holed now.
   */
  blackHole(filter?: ProxyFilter): number;
  /** Lets new connections through again; black-holed ones stay dead until closed. */
  heal(): void;
  /** The open connections, oldest first. */
  connections(): ProxyConnection[];
  /** Stops listening and destroys every connection; safe to call twice. */
  close(): Promise<void>;
}

const HOST = '127.0.0.1';
const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
/** PostgreSQL's own bound on a startup packet; a longer "length" is not one. */
const MAX_STARTUP_LENGTH = 10_000;

interface Connection {
  readonly id: number;
  readonly client: Socket;
  server: Socket | undefined;
  state: ProxyConnectionState | 'closed';
  params: Record<string, string> | undefined;
  /** Client bytes held while the startup message is incomplete. */
  pending: Buffer;
  bytesToServer: number;
  bytesToClient: number;
  bytesDropped: number;
}

/**
 * Starts a proxy on a free port of 127.0.0.1 that forwards to
 * `targetHost:targetPort`. Each connection is classified by the PostgreSQL
 * startup message its client sends first (an SSL or GSS encryption request
 * is forwarded as is, and the startup message after it is read if the
 * server declined): only that message is buffered, then bytes flow as they
 * come. Anything unreadable is forwarded unclassified.
 */
export async function startTcpProxy({
  targetPort,
  targetHost = HOST,
}: TcpProxyOptions): Promise<TcpProxy> {
  const open = new Map<number, Connection>();
  let blackHoles: ProxyFilter[] = [];
  let nextId = 1;

  const matches = (conn: Connection, filter: ProxyFilter): boolean =>
    filter.applicationName === undefined ||
    conn.params?.application_name === filter.applicationName;

  const inBlackHole = (conn: Connection) => blackHoles.some((filter) => matches(conn, filter));

  const swallow = (conn: Connection) => {
    conn.state = 'black-holed';
    conn.bytesDropped += conn.pending.length;
    conn.pending = Buffer.alloc(0);
    // Keep reading (and dropping), so neither side's writes back up in our buffers.
    conn.client.resume();
    conn.server?.resume();
  };

  const finish = (conn: Connection) => {
    conn.state = 'closed';
    open.delete(conn.id);
  };

  const toServer = (conn: Connection, data: Buffer) => {
    if (data.length === 0) return;
    conn.server ??= connectServer(conn);
    conn.bytesToServer += data.length;
    forward(conn.client, conn.server, data);
  };

  const connectServer = (conn: Connection): Socket => {
    const server = connect({ host: targetHost, port: targetPort });
    server.setNoDelay(true);
    server.on('data', (chunk: Buffer) => {
      if (conn.state === 'black-holed') {
        conn.bytesDropped += chunk.length;
      } else if (conn.state !== 'closed') {
        conn.bytesToClient += chunk.length;
        forward(server, conn.client, chunk);
      }
    });
    server.on('end', () => {
      if (conn.state === 'forwarding' || conn.state === 'startup') conn.client.end();
    });
    server.on('error', () => {
      // 'close' follows, with hadError.
    });
    server.on('close', (hadError) => {
      // A black-holed client never learns that the server went away.
      if (conn.state === 'black-holed') return;
      if (hadError) conn.client.destroy();
      else conn.client.end();
    });
    return server;
  };

  /** Forwards the rest of the connection as is, unclassified. */
  const passThrough = (conn: Connection) => {
    if (inBlackHole(conn)) return swallow(conn);
    conn.state = 'forwarding';
    const rest = conn.pending;
    conn.pending = Buffer.alloc(0);
    toServer(conn, rest);
  };

  const readStartup = (conn: Connection) => {
    while (conn.state === 'startup' && conn.pending.length >= 8) {
      const length = conn.pending.readInt32BE(0);
      const code = conn.pending.readInt32BE(4);
      if (length < 8 || length > MAX_STARTUP_LENGTH) return passThrough(conn);
      if (conn.pending.length < length) return;
      if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
        if (inBlackHole(conn)) return swallow(conn);
        // The server answers; if it declines, a plaintext startup message follows.
        const request = conn.pending.subarray(0, length);
        conn.pending = conn.pending.subarray(length);
        toServer(conn, request);
        continue;
      }
      // Protocol 3.x; anything else (a cancel request) goes through unclassified.
      if (code >>> 16 !== 3) return passThrough(conn);
      conn.params = startupParameters(conn.pending.subarray(8, length));
      return passThrough(conn);
    }
  };

  const server = createServer((client) => {
    client.setNoDelay(true);
    const conn: Connection = {
      id: nextId++,
      client,
      server: undefined,
      state: 'startup',
      params: undefined,
      pending: Buffer.alloc(0),
      bytesToServer: 0,
      bytesToClient: 0,
      bytesDropped: 0,
    };
    open.set(conn.id, conn);
    client.on('data', (chunk: Buffer) => {
      if (conn.state === 'black-holed') {
        conn.bytesDropped += chunk.length;
      } else if (conn.state === 'forwarding') {
        toServer(conn, chunk);
      } else if (conn.state === 'startup') {
        conn.pending = Buffer.concat([conn.pending, chunk]);
        readStartup(conn);
      }
    });
    client.on('end', () => {
      if (conn.state === 'forwarding') conn.server?.end();
    });
    client.on('error', () => {
      // 'close' follows, with hadError.
    });
    client.on('close', (hadError) => {
      const state = conn.state;
      finish(conn);
      if (state === 'forwarding' && !hadError) conn.server?.end();
      else conn.server?.destroy();
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, HOST, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('proxy has no TCP port');
  const port = address.port;

  let closed: Promise<void> | undefined;

  return {
    host: HOST,
    port,
    url: (database = 'postgres', user = 'postgres') =>
      `postgres://${encodeURIComponent(user)}@${HOST}:${port}/${encodeURIComponent(database)}`,
    cut(filter = {}) {
      let count = 0;
      for (const conn of [...open.values()]) {
        if (!matches(conn, filter)) continue;
        finish(conn);
        reset(conn.client);
        if (conn.server) reset(conn.server);
        count += 1;
      }
      return count;
    },
    blackHole(filter = {}) {
      blackHoles.push(filter);
      let count = 0;
      for (const conn of open.values()) {
        if (conn.state === 'black-holed' || !matches(conn, filter)) continue;
        swallow(conn);
        count += 1;
      }
      return count;
    },
    heal() {
      blackHoles = [];
    },
    connections: () =>
      [...open.values()].map((conn) => ({
        id: conn.id,
        state: conn.state as ProxyConnectionState,
        ...optional('applicationName', conn.params?.application_name),
        ...optional('user', conn.params?.user),
        ...optional('database', conn.params?.database),
        bytesToServer: conn.bytesToServer,
        bytesToClient: conn.bytesToClient,
        bytesDropped: conn.bytesDropped,
      })),
    close() {
      closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const conn of [...open.values()]) {
          finish(conn);
          conn.client.destroy();
          conn.server?.destroy();
        }
      });
      return closed;
    },
  };
}

/** Writes with backpressure: a slow reader pauses its writer's source. */
function forward(source: Socket, target: Socket, data: Buffer): void {
  if (target.destroyed) return;
  if (!target.write(data)) {
    source.pause();
    target.once('drain', () => source.resume());
  }
}

function reset(socket: Socket): void {
  if (socket.destroyed) return;
  // RST rather than FIN, so the peer sees a connection error, not a clean close.
  if (socket.readyState === 'open') socket.resetAndDestroy();
  else socket.destroy();
}

/** The NUL-terminated name/value pairs after a startup message's length and protocol. */
function startupParameters(body: Buffer): Record<string, string> {
  const params: Record<string, string> = {};
  let offset = 0;
  for (;;) {
    const nameEnd = body.indexOf(0, offset);
    if (nameEnd <= offset) return params;
    const valueEnd = body.indexOf(0, nameEnd + 1);
    if (valueEnd < 0) return params;
    params[body.toString('utf8', offset, nameEnd)] = body.toString('utf8', nameEnd + 1, valueEnd);
    offset = valueEnd + 1;
  }
}

function optional<K extends string>(key: K, value: string | undefined): { [P in K]?: string } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: string };
}
