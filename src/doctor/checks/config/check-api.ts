import type { FetchLike } from '../../../channels/http.js';
import type { ApiConfig } from '../../../config/schemas/api-schema.js';
import { resolveApiAccess, type ApiAccess } from '../../../platform-api/access.js';
import { PlatformClient } from '../../../platform-api/api-client.js';
import { ApiAccessError, HttpError, NetworkError, TimeoutError } from '../../../platform-api/errors.js';
import type { Env } from '../../../paths.js';
import { result, type CheckResult } from '../../types.js';

const HOW_TO_SET =
  'create a key in the API-keys settings page of the web app, then `export HOOKD_API_KEY=...` or set api.keyFile in the config';

/** Is an API key configured, and does the platform accept it? One cheap authenticated request. */
export async function checkApiKey(
  env: Env,
  config: ApiConfig | undefined,
  options: { fetch: FetchLike; timeoutMs: number },
): Promise<CheckResult> {
  const id = 'api';
  const title = 'Platform API key';
  let access: ApiAccess;
  try {
    access = resolveApiAccess(env, config);
  } catch (error) {
    const hint = error instanceof ApiAccessError ? error.hint : undefined;
    const noKey = (error as Error).message.startsWith('no API key');
    if (noKey)
      return result(
        id,
        title,
        'skip',
        'no API key configured: enrichment uses the local session store only',
        HOW_TO_SET,
      );
    return result(id, title, 'fail', (error as Error).message, hint ?? HOW_TO_SET);
  }
  const source = access.keySource === 'keyFile' ? `api.keyFile ${access.keyFile}` : access.keySource;
  try {
    const client = new PlatformClient({
      baseUrl: access.baseUrl,
      appUrl: access.appUrl,
      apiKey: access.apiKey,
      fetch: options.fetch,
      timeoutMs: options.timeoutMs,
      retries: 0,
    });
    const computers = await client.listComputers();
    return result(
      id,
      title,
      'ok',
      `key from ${source} accepted by ${access.baseUrl} (GET /api/v0/computers: ${computers.length} computer(s))`,
    );
  } catch (error) {
    if (error instanceof HttpError && (error.status === 401 || error.status === 403)) {
      return result(
        id,
        title,
        'fail',
        `${access.baseUrl} refused the key from ${source} (${error.status}${error.status === 401 ? ': invalid or revoked' : ': not allowed'})`,
        error.status === 401
          ? `the key is wrong, expired or revoked: create a new one in the API-keys settings page and update ${source}`
          : 'the key works but its user may not list computers: use a key of a user with access',
      );
    }
    if (error instanceof ApiAccessError)
      return result(id, title, 'fail', error.message, error.hint ?? 'check HOOKD_API_URL / api.baseUrl');
    if (error instanceof NetworkError || error instanceof TimeoutError)
      return result(
        id,
        title,
        'fail',
        `cannot reach ${access.baseUrl}: ${(error as Error).message}`,
        'check your network or proxy, and HOOKD_API_URL / api.baseUrl',
      );
    return result(
      id,
      title,
      'warn',
      `the key could not be confirmed: ${(error as Error).message}`,
      'run `hookd api computers list` to see the full error',
    );
  }
}
