import { safeHost, type FetchLike } from '../notify/channels/http.js';

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
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const response = await fetchImpl(`${origin}/`, {
      method: 'HEAD',
      redirect: 'manual',
      signal: controller.signal,
    });
    await response.body?.cancel().catch(() => undefined);
    return { ok: true, status: response.status };
  } catch (error) {
    if (controller.signal.aborted)
      return { ok: false, error: `no answer from ${safeHost(url)} within ${timeoutMs}ms` };
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return {
      ok: false,
      error: `cannot reach ${safeHost(url)}: ${cause?.code ?? cause?.message ?? (error as Error).message}`,
    };
  } finally {
    clearTimeout(timer);
  }
}
