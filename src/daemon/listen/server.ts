import { createServer, type Server, type Socket } from 'node:net';
import { chmodSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { listenInDir } from '../../util/unix-socket.js';
import { parseRequest, replyLine, type DaemonRequest } from '../../link/protocol.js';

/** Longest request line accepted (an event's payload is capped at 8 MiB by the hook). */
export const MAX_LINE_BYTES = 16 * 1024 * 1024;

/** Request lines one connection may have read and not yet answered before the daemon stops reading it. */
export const MAX_QUEUED = 8;

/** The connection a request came on: `closed` aborts when the client goes away. */
export interface Connection {
  closed: AbortSignal;
}

export type RequestHandler = (
  request: DaemonRequest,
  connection: Connection,
) => Promise<Record<string, unknown>>;

export interface SocketServer {
  server: Server;
  /** Stops accepting; open connections get their in-flight replies, then are closed. */
  close(): Promise<void>;
}

/**
 * The daemon's unix socket: newline-delimited JSON, requests answered one at a time per connection, in
 * order. Bad lines get a clear `{"v":1,"ok":false,"code":...,"error":...}` and the connection stays usable.
 */
export async function listenOnSocket(socketPath: string, handle: RequestHandler): Promise<SocketServer> {
  const sockets = new Map<Socket, { busy: number; closing: boolean }>();
  const server = createServer((socket) => {
    const state = { busy: 0, closing: false };
    sockets.set(socket, state);
    const closed = new AbortController();
    const connection: Connection = { closed: closed.signal };
    let buffer = '';
    let chain: Promise<void> = Promise.resolve();
    // Lines read but not yet answered: past MAX_QUEUED the socket stops reading until they are, so a peer
    // that keeps sending behind a request that waits (a `once-wait`) cannot fill the daemon's memory.
    let queued = 0;
    let refused = false;
    socket.setEncoding('utf8');
    socket.on('error', () => {});
    socket.on('close', () => {
      sockets.delete(socket);
      closed.abort();
    });
    socket.on('data', (chunk: string) => {
      if (refused) return;
      buffer += chunk;
      if (buffer.length > MAX_LINE_BYTES) {
        refused = true;
        buffer = '';
        socket.end(
          replyLine({ ok: false, code: 'too_large', error: `request line over ${MAX_LINE_BYTES} bytes` }),
          () => socket.destroy(),
        );
        return;
      }
      let newline: number;
      while ((newline = buffer.indexOf('\n')) !== -1) {
        const line = buffer.slice(0, newline).trim();
        buffer = buffer.slice(newline + 1);
        if (!line) continue;
        state.busy++;
        if (++queued > MAX_QUEUED) socket.pause();
        chain = chain.then(async () => {
          let reply: Record<string, unknown>;
          const parsed = parseRequest(line);
          if (!parsed.ok)
            reply = {
              ok: false,
              code: parsed.code,
              error: parsed.error,
              ...(parsed.id ? { id: parsed.id } : {}),
            };
          else {
            try {
              reply = await handle(parsed.request, connection);
            } catch (error) {
              reply = { ok: false, code: 'internal', error: (error as Error).message };
            }
          }
          state.busy--;
          if (--queued <= MAX_QUEUED && socket.isPaused()) socket.resume();
          if (!socket.destroyed) socket.write(replyLine(reply));
          if (state.closing && state.busy === 0) socket.end();
        });
      }
    });
  });
  await listenInDir(server, dirname(socketPath), basename(socketPath));
  chmodSync(socketPath, 0o600);
  return {
    server,
    close: () =>
      new Promise<void>((resolve) => {
        // Clients that keep a connection open past their replies are cut after a grace period.
        const force = setTimeout(() => {
          for (const socket of sockets.keys()) socket.destroy();
        }, 2000);
        server.close(() => {
          clearTimeout(force);
          resolve();
        });
        for (const [socket, state] of sockets) {
          state.closing = true;
          if (state.busy === 0) socket.end();
        }
      }),
  };
}
