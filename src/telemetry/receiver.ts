import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import type { Logger } from 'pino';
import { decodeExport, OtlpDecodeError } from './otlp-decode.js';
import type { OtlpEncoding } from './otlp-encode.js';
import { bearerMatches } from './receiver-token.js';
import { SIGNALS, type Signal } from './signals.js';

/** The receiver only ever listens on the loopback interface. */
export const RECEIVER_HOST = '127.0.0.1';
/** What the receiver answers a request without its token (doctor knows the receiver by it). */
export const UNAUTHORIZED_TEXT = 'hookd OTLP receiver: bearer token required';

export interface ReceiverCounts {
  accepted: number;
  /** Requests without the right bearer token (401): logged, never read. */
  unauthorized: number;
  /** Bodies over the limit (413), of a type it does not speak (415), or that do not decode (400). */
  refused: number;
}

export interface ReceiverOptions {
  port: number;
  token: string;
  maxBodyBytes: number;
  logger: Logger;
  /** One decoded export request (OTLP/JSON shape). Never awaited by the agent: answered first. */
  onRequest: (signal: Signal, request: Record<string, unknown>) => void;
}

export interface Receiver {
  port: number;
  counts: ReceiverCounts;
  close(): Promise<void>;
}

const PATHS = new Map<string, Signal>(SIGNALS.map((signal) => [`/v1/${signal}`, signal]));

function encodingOf(contentType: string | undefined): OtlpEncoding | undefined {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/x-protobuf' || type === 'application/protobuf') return 'protobuf';
  if (type === 'application/json') return 'json';
  return undefined;
}

/** Reads at most `max` bytes of a body; undefined when it is longer (the rest is not read). */
function readCapped(req: IncomingMessage, max: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        req.pause();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/**
 * The local OTLP/HTTP receiver for the agents' own telemetry (docs/telemetry.md): 127.0.0.1 only, a
 * bearer token on every request (compared in constant time; a request without it gets 401 and is logged,
 * its body never read), a bounded body (gzip too, bounded after inflating), protobuf or JSON.
 */
/** How often a refused (no token) request is written to the log at most. */
const REFUSAL_LOG_EVERY_MS = 60_000;

export async function startReceiver(options: ReceiverOptions): Promise<Receiver> {
  const { logger, maxBodyBytes } = options;
  const counts: ReceiverCounts = { accepted: 0, unauthorized: 0, refused: 0 };
  let lastRefusalLog = -Infinity;
  const refuse = (res: ServerResponse, status: number, message: string) => {
    counts.refused += 1;
    res.writeHead(status, { 'content-type': 'text/plain', connection: 'close' }).end(`${message}\n`);
  };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (!bearerMatches(req.headers.authorization, options.token)) {
      counts.unauthorized += 1;
      // Any local user can knock: the first refusal is logged, then at most one line a minute.
      const at = Date.now();
      if (at - lastRefusalLog >= REFUSAL_LOG_EVERY_MS) {
        lastRefusalLog = at;
        logger.warn(
          {
            source: 'telemetry',
            path: req.url?.slice(0, 100),
            remotePort: req.socket.remotePort,
            refusedSoFar: counts.unauthorized,
          },
          'OTLP request without the receiver token refused (401)',
        );
      }
      res.writeHead(401, { 'content-type': 'text/plain', connection: 'close' }).end(`${UNAUTHORIZED_TEXT}\n`);
      req.destroy();
      return;
    }
    const signal = PATHS.get(req.url ?? '');
    if (req.method !== 'POST' || !signal)
      return refuse(res, 404, 'POST to /v1/traces, /v1/metrics or /v1/logs');
    const encoding = encodingOf(req.headers['content-type']);
    if (!encoding) return refuse(res, 415, 'application/x-protobuf or application/json');
    if (Number(req.headers['content-length'] ?? 0) > maxBodyBytes) {
      refuse(res, 413, 'request too large');
      req.destroy();
      return;
    }
    let body = await readCapped(req, maxBodyBytes);
    if (!body) {
      refuse(res, 413, 'request too large');
      req.destroy();
      return;
    }
    let request: Record<string, unknown>;
    try {
      if (req.headers['content-encoding'] === 'gzip')
        body = gunzipSync(body, { maxOutputLength: maxBodyBytes });
      request = await decodeExport(signal, body, encoding);
    } catch (error) {
      // A gzip body that inflates past the bound is too large, like a plain one.
      if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE')
        return refuse(res, 413, 'request too large');
      const message = error instanceof OtlpDecodeError ? error.message : 'cannot read the body';
      logger.warn({ source: 'telemetry', signal, error: message.slice(0, 200) }, 'OTLP request refused');
      return refuse(res, 400, message.slice(0, 200));
    }
    counts.accepted += 1;
    // An empty export response is the same in both encodings' terms: nothing rejected.
    res.writeHead(200, {
      'content-type': encoding === 'json' ? 'application/json' : 'application/x-protobuf',
    });
    res.end(encoding === 'json' ? '{}' : '');
    try {
      options.onRequest(signal, request);
    } catch (error) {
      logger.error({ source: 'telemetry', signal, error: (error as Error).message }, 'cannot take OTLP data');
    }
  };
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: Error) => {
      if (!res.headersSent) refuse(res, 500, 'internal error');
      logger.error({ source: 'telemetry', error: error.message }, 'OTLP receiver failed on a request');
    });
  });
  server.requestTimeout = 30_000;
  server.headersTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, RECEIVER_HOST, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    counts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
