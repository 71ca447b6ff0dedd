import { WATCHER_NAMES, watchSettings } from '../../../config/schemas/watch-schema.js';
import type { NotifyConfig } from '../../../config/schemas/notify-schema.js';
import type { Env } from '../../../paths.js';
import { listWatchers, type WatcherRow } from '../../../watch/report.js';
import { watchRules, withWatchDefault } from '../../../watch/routing.js';
import { watchStatePath } from '../../../watch/state-file.js';
import type { DaemonView } from '../daemon/daemon-view.js';
import { result, type CheckResult } from '../../types.js';

const FIX: Partial<Record<WatcherRow['status'], string>> = {
  forbidden: 'use an API key with the role the endpoint needs (credits: a Manager or Owner key)',
  unauthorized: 'set a valid API key (HOOKD_API_KEY or api.keyFile), then `hookd watch test`',
  'rate-limited': 'it polls again after the wait the platform asked for; raise its interval if it recurs',
  error: '`hookd watch test <name>` shows the error now; the daemon backs off meanwhile',
};

/**
 * The watchers on the platform API (docs/watch.md): turned on in the config, run by the daemon, their
 * last poll, and whether a notify rule routes what they raise.
 */
export function checkWatch(
  env: Env,
  watchInput: unknown,
  notify: NotifyConfig,
  view: DaemonView,
): CheckResult {
  const id = 'platform-watch';
  const title = 'platform watchers';
  const config = watchSettings(watchInput);
  const on = WATCHER_NAMES.filter((name) => config[name].enabled);
  if (on.length === 0) return result(id, title, 'skip', 'no watcher is turned on', 'docs/watch.md');
  // The running daemon's rows when it reports them, else what it saved.
  const rows = (view.stats?.watchers ?? listWatchers(config, watchStatePath(env)).watchers).filter((w) =>
    on.includes(w.name),
  );
  if (view.running && view.stats && !view.stats.watchers)
    return result(
      id,
      title,
      'warn',
      `${on.join(', ')} turned on, but the daemon runs no watcher (no API key when it read the config?)`,
      'set HOOKD_API_KEY or api.keyFile; the daemon applies a changed config on its own (its log says why)',
    );
  const failing = rows.filter((w) => w.failures > 0);
  if (failing.length > 0) {
    const worst = failing[0]!;
    return result(
      id,
      title,
      'warn',
      failing.map((w) => `${w.name}: ${w.status} (${w.failures} in a row): ${w.lastError ?? '?'}`).join('; '),
      FIX[worst.status],
    );
  }
  if (watchRules(withWatchDefault(notify, true)).length === 0)
    return result(
      id,
      title,
      'warn',
      `${on.join(', ')} on, but no notify rule routes PlatformWatch and notify.defaults is off: what they raise is recorded only`,
      'add a rule with "on": "PlatformWatch" (docs/watch.md)',
    );
  const polled = rows.filter((w) => w.status === 'ok').map((w) => w.name);
  const waiting = rows.filter((w) => w.status === 'new').map((w) => w.name);
  return result(
    id,
    title,
    'ok',
    [
      polled.length ? `${polled.join(', ')} polling` : '',
      waiting.length ? `${waiting.join(', ')} not polled yet` : '',
    ]
      .filter(Boolean)
      .join('; '),
  );
}
