import { ADAPTERS } from '../../../agents/adapters/registry.js';
import type { RemoteConfig } from '../../../config/schemas/remote-schema.js';
import { hookdHooksAt } from '../../../install/hookd-layers.js';
import type { HooksFileRead } from '../../../install/effective-hooks.js';
import { isObject } from '../../../util/json-values.js';
import { result, type CheckResult } from '../../types.js';

/** hookd's wait must end this long before the agent stops the hook (docs/remote.md). */
const MARGIN_SEC = 2;

/**
 * Remote answers (docs/remote.md): which channels carry them, and whether Claude Code gives hookd's
 * PermissionRequest hook time to answer: `waitSec` must end at least 2 s before the entry's timeout,
 * or Claude Code stops the hook first and a remote answer that came in time is lost.
 */
export function checkRemote(
  remote: RemoteConfig | undefined,
  claudeFiles: readonly HooksFileRead[],
): CheckResult {
  const title = 'remote answers';
  if (!remote?.enabled)
    return result(
      'remote-answers',
      title,
      'skip',
      'off: no `remote` section in your config',
      'docs/remote.md',
    );
  const channels = [
    remote.ntfy ? 'ntfy' : undefined,
    remote.slack ? 'Slack' : undefined,
    remote.desktop?.enabled ? 'desktop' : undefined,
  ].filter(Boolean);
  const hooks = hookdHooksAt(claudeFiles).filter((h) => !h.shadowedBy && h.event === 'PermissionRequest');
  if (hooks.length === 0)
    return result(
      'remote-answers',
      title,
      'warn',
      `on (${channels.join(', ') || 'no channel'}), but Claude Code runs no hookd PermissionRequest hook`,
      'hookd install --agent claude',
    );
  const agentDefault = ADAPTERS.claude.install.timeouts.agentDefault;
  const short = hooks
    .map((h) => ({
      file: h.file,
      timeout:
        isObject(h.hook) && typeof h.hook.timeout === 'number' && h.hook.timeout > 0
          ? h.hook.timeout
          : agentDefault,
    }))
    .filter((h) => remote.waitSec + MARGIN_SEC > h.timeout);
  if (short.length > 0)
    return result(
      'remote-answers',
      title,
      'warn',
      `waitSec is ${remote.waitSec} s, but the PermissionRequest entry in ${short[0]!.file} gives hookd ` +
        `${short[0]!.timeout} s: Claude Code would stop the hook before a remote answer is given`,
      `lower remote.waitSec to ${Math.max(1, short[0]!.timeout - 5)} or raise the entry's timeout`,
    );
  return result(
    'remote-answers',
    title,
    channels.length > 0 ? 'ok' : 'warn',
    channels.length > 0
      ? `through ${channels.join(', ')}; hookd waits ${remote.waitSec} s for an answer`
      : 'on, but no channel is configured',
  );
}
