import { spoolDir, type Env } from '../../../paths.js';
import type { DaemonView } from './daemon-view.js';
import { result, type CheckResult } from '../../types.js';

/** Undelivered work: events spooled while the daemon was down, and the outbox (pending, held, dead). */
export function checkBacklog(env: Env, view: DaemonView): CheckResult {
  const id = 'backlog';
  const title = 'Spool and outbox';
  const { pending, held, dead } = view.outbox;
  const counts = `spool ${view.spooled}, events to process ${view.pendingEvents}, outbox ${pending} pending, ${held} held (quiet hours), ${dead} dead`;
  const problems: string[] = [];
  const fixes: string[] = [];
  if (view.spooled > 0) {
    problems.push(
      view.running
        ? `${view.spooled} event(s) in ${spoolDir(env)}; the daemon drains it every few seconds, so this should go away`
        : `${view.spooled} event(s) in ${spoolDir(env)} wait for the daemon`,
    );
    fixes.push(view.running ? 'if the spool does not shrink, look at the daemon log' : 'hookd daemon start');
  }
  if (dead > 0) {
    problems.push(`${dead} notification(s) could not be delivered and were dead-lettered`);
    fixes.push('see why with `hookd outbox list --state dead`, fix the channel, then `hookd outbox retry`');
  }
  if (!view.running && pending > 0) {
    problems.push(`${pending} notification(s) wait for the daemon to deliver them`);
    if (view.spooled === 0) fixes.push('hookd daemon start');
  }
  if (problems.length === 0) return result(id, title, 'ok', counts);
  return result(id, title, 'warn', [counts, ...problems].join('\n'), fixes.join('; '));
}
