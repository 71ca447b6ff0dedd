import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

/** How one POST ended: a status (the body is read and dropped), or no answer. */
export type PostAnswer =
  | { ok: true; status: number; retryAfter: string | undefined }
  | { ok: false; timedOut: boolean; reason: string };

export type PostLike = (
  url: string,
  headers: Record<string, string>,
  body: Uint8Array,
  timeoutMs: number,
) => Promise<PostAnswer>;

/**
 * One OTLP POST with node:http(s): lighter in the daemon than fetch (whose client library would be loaded
 * for telemetry alone). The deadline covers the whole exchange; the answer's body is drained, not kept.
 */
export const postOtlp: PostLike = (url, headers, body, timeoutMs) =>
  new Promise((resolve) => {
    let settled = false;
    const done = (answer: PostAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(answer);
    };
    const target = new URL(url);
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(target, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(body.byteLength) },
    });
    const timer = setTimeout(() => {
      done({ ok: false, timedOut: true, reason: 'timeout' });
      req.destroy();
    }, timeoutMs);
    timer.unref();
    req.on('response', (res) => {
      const retryAfter = res.headers['retry-after'];
      res.resume();
      res.on('end', () => done({ ok: true, status: res.statusCode ?? 0, retryAfter }));
      res.on('error', (error) => done({ ok: false, timedOut: false, reason: error.message }));
    });
    req.on('error', (error: NodeJS.ErrnoException) =>
      done({ ok: false, timedOut: false, reason: error.code ?? error.message }),
    );
    req.end(body);
  });
