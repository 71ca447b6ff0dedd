import { safeHost } from '../../../channels/http.js';
import { fetchWithTimeout, type FetchLike } from '../../../util/fetch-with-timeout.js';

export type HttpProbe = { ok: true; status: number } | { ok: false; error: string };

/**
 * Is the host of `url` reachable over HTTP(S)? Sends `HEAD /` to its origin only (never the secret
 * path of a webhook URL); any HTTP answer counts, whatever its status.
 */
export async function probeHttp(url: string, fetchImpl: FetchLike, timeoutMs: number): Promise<HttpProbe> {
  let origin: string;
  try {
    origin = new URL(url).origin;
  } catch {
    return { ok: false, error: 'not a valid URL' };
  }
  const answer = await fetchWithTimeout(
    fetchImpl,
    `${origin}/`,
    { method: 'HEAD', redirect: 'manual' },
    { timeoutMs, maxBodyBytes: 0 },
  );
  if (answer.ok) return { ok: true, status: answer.status };
  return {
    ok: false,
    error: answer.timedOut
      ? `no answer from ${safeHost(url)} within ${timeoutMs}ms`
      : `cannot reach ${safeHost(url)}: ${answer.reason}`,
  };
}
