import { lstatSync } from 'node:fs';
import { formatDuration } from '../../../terminal/output.js';
import type { DaemonConfig } from '../../../config/schemas/daemon-schema.js';
import { daemonFiles } from '../../../link/runtime-files.js';
import { journalTrouble } from '../../../daemon/admin.js';
import type { Env } from '../../../paths.js';
import type { DaemonView } from './daemon-view.js';
import { result, type CheckResult } from '../../types.js';

function mode(bits: number): string {
  return (bits & 0o777).toString(8).padStart(4, '0');
}

/** Problems with the runtime dir and the socket: others must not be able to reach the daemon. */
export function privacyProblems(env: Env, uid: number | undefined): { problems: string[]; fixes: string[] } {
  const files = daemonFiles(env);
  const problems: string[] = [];
  const fixes: string[] = [];
  try {
    const dir = lstatSync(files.dir);
    if (!dir.isDirectory()) {
      problems.push(`${files.dir} is not a directory`);
      fixes.push(`remove ${files.dir} (the daemon recreates it as a private folder)`);
    } else {
      if (uid !== undefined && dir.uid !== uid) {
        problems.push(`${files.dir} belongs to uid ${dir.uid}, not to you (uid ${uid})`);
        fixes.push('set HOOKD_RUNTIME_DIR to a folder of your own');
      }
      if ((dir.mode & 0o077) !== 0) {
        problems.push(`${files.dir} is mode ${mode(dir.mode)}; it must be 0700`);
        fixes.push(`chmod 700 ${files.dir}`);
      }
    }
  } catch {
    return { problems, fixes };
  }
  try {
    const socket = lstatSync(files.socket);
    if (!socket.isSocket()) {
      problems.push(`${files.socket} is not a socket`);
      fixes.push(`remove ${files.socket} and restart the daemon`);
    } else if ((socket.mode & 0o077) !== 0) {
      problems.push(
        `${files.socket} is mode ${mode(socket.mode)}; others can send it events (it must be 0600)`,
      );
      fixes.push(
        `chmod 600 ${files.socket}, or restart the daemon (hookd daemon stop && hookd daemon start)`,
      );
    }
  } catch {}
  return { problems, fixes };
}

/** Is the daemon running, answering, and reachable by this user only? */
export function checkDaemon(
  env: Env,
  view: DaemonView,
  settings: DaemonConfig,
  uid: number | undefined = process.getuid?.(),
): CheckResult {
  const id = 'daemon';
  const title = 'Notification daemon';
  const files = daemonFiles(env);
  const privacy = privacyProblems(env, uid);
  if (privacy.problems.length > 0) {
    return result(id, title, 'fail', privacy.problems.join('\n'), privacy.fixes.join('; '));
  }
  if (view.running && view.stats) {
    const s = view.stats;
    if (s.journal.error)
      return result(
        id,
        title,
        'fail',
        `running (pid ${s.pid}), but ${journalTrouble(s.journal.file, s.journal.error)}`,
        `free space on the file system of ${s.journal.file}`,
      );
    const config = s.config.ok
      ? ''
      : `\nthe daemon rejected the latest config edit and runs the last good one (${s.config.issues.length} issue(s))`;
    return result(
      id,
      title,
      s.config.ok ? 'ok' : 'warn',
      `running (pid ${s.pid}, up ${formatDuration(s.uptimeMs)}); socket ${files.socket} 0600 in a 0700 folder${config}`,
      s.config.ok ? undefined : 'fix the config (see the config check), the daemon reloads it on save',
    );
  }
  if (!settings.enabled || env.HOOKD_DAEMON === '0') {
    return result(
      id,
      title,
      'skip',
      `not running, and disabled (${env.HOOKD_DAEMON === '0' ? 'HOOKD_DAEMON=0' : 'daemon.enabled is false'}): hooks run their commands, no notifications are sent`,
    );
  }
  if (view.lockPid !== undefined) {
    return result(
      id,
      title,
      'fail',
      `pid ${view.lockPid} holds the daemon lock but does not answer on ${files.socket} (${view.reason ?? 'no answer'})`,
      `hookd daemon stop (or kill ${view.lockPid}), then hookd daemon start`,
    );
  }
  const auto = settings.autoStart
    ? 'the next hook starts it (daemon.autoStart)'
    : 'daemon.autoStart is false, so nothing starts it';
  return result(
    id,
    title,
    'warn',
    `${view.reason ?? 'the daemon does not answer'}; events wait in the spool, ${auto}`,
    'hookd daemon start (or `hookd daemon install-service` to start it at login)',
  );
}
