import { readBodyCapped } from './read-body.js';

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export type FetchAnswer = {
  ok: true;
  status: number;
  headers: Headers;
  /** At most `maxBodyBytes` of the body. */
  text: string;
  /** The body was longer than `maxBodyBytes` (the rest was never read). */
  truncated: boolean;
};

/** No answer: `timedOut` when the deadline passed, else `reason` (the network error's code or message). */
export type FetchFailure = { ok: false; timedOut: boolean; reason: string };

/**
 * One HTTP exchange with a deadline (`AbortSignal.timeout`) that covers the headers and the body, the
 * body read up to `maxBodyBytes` and the rest cancelled (0: none read). A network error or a timeout is a
 * value, never a throw. The one place hookd calls fetch: channels, the platform client, doctor's probes.
 */
export async function fetchWithTimeout(
  fetchImpl: FetchLike,
  url: string,
  init: Omit<RequestInit, 'signal'>,
  limits: { timeoutMs: number; maxBodyBytes: number },
): Promise<FetchAnswer | FetchFailure> {
  const signal = AbortSignal.timeout(limits.timeoutMs);
  try {
    const response = await fetchImpl(url, { ...init, signal });
    if (limits.maxBodyBytes <= 0) {
      await response.body?.cancel().catch(() => undefined);
      return { ok: true, status: response.status, headers: response.headers, text: '', truncated: false };
    }
    const { text, truncated } = await readBodyCapped(response, limits.maxBodyBytes);
    return { ok: true, status: response.status, headers: response.headers, text, truncated };
  } catch (error) {
    if (signal.aborted) return { ok: false, timedOut: true, reason: 'timeout' };
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const reason = cause?.code ?? cause?.message ?? (error as Error).message ?? String(error);
    return { ok: false, timedOut: false, reason: String(reason) };
  }
}
