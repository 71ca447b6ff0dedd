import { trustReport } from '../../../config/trust.js';
import type { Env } from '../../../paths.js';
import { result, type CheckResult } from '../../types.js';

/**
 * Every trust record (`hookd trust --list`, checked): a trusted project whose config no longer applies
 * (changed, now a link, unreadable) has lost its commands, guards included; an older hookd's record
 * that could not carry over to a project dir is kept, and listed here until it is trusted again or
 * revoked. Reads each trusted config once; changes nothing on disk.
 */
export function checkTrust(env: Env): CheckResult {
  const id = 'project-trust';
  const title = 'project trust';
  const report = trustReport(env);
  if (report.problem)
    return result(
      id,
      title,
      'warn',
      `${report.problem}: no project config is trusted`,
      'run `hookd trust <dir>` for each project you use: it rewrites the trust file',
    );
  const lapsed = report.trusted.filter((t) => t.state !== 'applies' && t.state !== 'absent');
  const gone = report.trusted.filter((t) => t.state === 'absent');
  const lines = [
    ...lapsed.map((t) => `${t.dir}: trust lapsed, its commands no longer run: ${t.problem}`),
    ...report.notCarriedOver.map((o) => `${o.file}: an older record that could not carry over: ${o.reason}`),
  ];
  const applies = report.trusted.length - lapsed.length - gone.length;
  const summary = `${applies} trusted project config(s) apply as trusted${gone.length > 0 ? `; ${gone.length} trusted project(s) have no config now (${gone.map((t) => t.dir).join(', ')})` : ''}`;
  if (lines.length === 0)
    return result(
      id,
      title,
      'ok',
      report.trusted.length === 0 && report.notCarriedOver.length === 0
        ? 'no project config is trusted'
        : summary,
    );
  const fixes = [
    ...lapsed.map((t) => `${t.dir}: ${t.fix}`),
    ...report.notCarriedOver.map((o) => `${o.file}: ${o.fix}`),
  ];
  return result(id, title, 'warn', [...lines, summary].join('\n'), fixes.join('; '));
}
