import {
  Agent as HttpAgent,
  request as httpRequest,
  type ClientRequest,
  type IncomingMessage,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

/** What the channels read of an answer's headers. */
export interface AnswerHeaders {
  get(name: string): string | null;
}

export type NodeAnswer =
  | { ok: true; status: number; headers: AnswerHeaders; text: string; truncated: boolean }
  | { ok: false; timedOut: boolean; reason: string };

/**
 * One keep-alive pool per scheme for the channels' POSTs (webhook, Slack, ntfy): the connection of the
 * last delivery is reused, so a notification costs one write on an open socket, not a connect (and a TLS
 * handshake). Free sockets do not keep the daemon alive, and follow the server's Keep-Alive hint.
 */
const agents = {
  'http:': new HttpAgent({ keepAlive: true, maxSockets: 16, maxFreeSockets: 4 }),
  'https:': new HttpsAgent({ keepAlive: true, maxSockets: 16, maxFreeSockets: 4 }),
} as const;

/** Whether `postOverNode` can send to this URL (http or https); others go to fetch. */
export function nodeCanPost(url: string): boolean {
  try {
    const { protocol } = new URL(url);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

function headersOf(res: IncomingMessage): AnswerHeaders {
  return {
    get(name: string) {
      const value = res.headers[name.toLowerCase()];
      if (value === undefined) return null;
      return Array.isArray(value) ? value.join(', ') : value;
    },
  };
}

/** Node's codes (ECONNREFUSED...) as fetch's `cause.code` gave them; else the message. */
function reasonOf(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  return String(e?.code ?? e?.message ?? error);
}

function once(
  url: string,
  body: string,
  headers: Record<string, string>,
  limits: { timeoutMs: number; maxBodyBytes: number },
): Promise<{ answer: NodeAnswer; reused: boolean }> {
  return new Promise((resolve) => {
    const protocol = new URL(url).protocol as 'http:' | 'https:';
    const send = protocol === 'https:' ? httpsRequest : httpRequest;
    let settled = false;
    let req: ClientRequest | undefined;
    const finish = (answer: NodeAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ answer, reused: req?.reusedSocket === true });
    };
    // One deadline for the headers and the body, as fetch's AbortSignal.timeout.
    const timer = setTimeout(() => {
      finish({ ok: false, timedOut: true, reason: 'timeout' });
      req?.destroy();
    }, limits.timeoutMs);
    try {
      req = send(url, {
        method: 'POST',
        agent: agents[protocol],
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      });
    } catch (error) {
      finish({ ok: false, timedOut: false, reason: reasonOf(error) });
      return;
    }
    req.on('error', (error) => finish({ ok: false, timedOut: false, reason: reasonOf(error) }));
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const done = (truncated: boolean) =>
        finish({
          ok: true,
          status: res.statusCode ?? 0,
          headers: headersOf(res),
          text: Buffer.concat(chunks, size).toString('utf8'),
          truncated,
        });
      res.on('data', (chunk: Buffer) => {
        if (settled) return;
        const room = limits.maxBodyBytes - size;
        if (chunk.length > room) {
          // At most maxBodyBytes of any answer: the rest is never read (the socket is not reused).
          if (room > 0) chunks.push(chunk.subarray(0, room));
          size += Math.max(0, room);
          done(true);
          res.destroy();
          return;
        }
        chunks.push(chunk);
        size += chunk.length;
      });
      res.on('end', () => done(false));
      res.on('error', (error) => finish({ ok: false, timedOut: false, reason: reasonOf(error) }));
      res.on('aborted', () => finish({ ok: false, timedOut: false, reason: 'ECONNRESET' }));
    });
    req.end(body);
  });
}

/**
 * A POST over node:http(s) with a keep-alive connection, a deadline over the headers and the body, and
 * at most `maxBodyBytes` of the answer read; a network error or timeout is a value, never a throw. A
 * kept-alive connection the server closed as the request went out (ECONNRESET, EPIPE, a hang-up before
 * any answer) is tried once more on a new one, as fetch does. Redirects are not followed: the caller
 * gets the 3xx (the channels then ask fetch, which follows them).
 */
export async function postOverNode(
  url: string,
  body: string,
  headers: Record<string, string>,
  limits: { timeoutMs: number; maxBodyBytes: number },
): Promise<NodeAnswer> {
  const started = Date.now();
  const first = await once(url, body, headers, limits);
  const a = first.answer;
  if (a.ok || !first.reused || !['ECONNRESET', 'EPIPE', 'socket hang up'].includes(a.reason)) return a;
  const left = limits.timeoutMs - (Date.now() - started);
  if (left <= 0) return { ok: false, timedOut: true, reason: 'timeout' };
  return (await once(url, body, headers, { ...limits, timeoutMs: left })).answer;
}
