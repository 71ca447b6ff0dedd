import { paint, safeText, type Color, type Out } from '../terminal/output.js';
import type { CheckResult, CheckStatus } from './types.js';

const MARKS: Record<CheckStatus, { mark: string; color: Color }> = {
  ok: { mark: '✓', color: 'green' },
  warn: { mark: '!', color: 'yellow' },
  fail: { mark: '✗', color: 'red' },
  skip: { mark: '-', color: 'gray' },
};

/** Counts per status, for the summary line and the exit code. */
export function countStatuses(results: readonly CheckResult[]): Record<CheckStatus, number> {
  const counts: Record<CheckStatus, number> = { ok: 0, warn: 0, fail: 0, skip: 0 };
  for (const r of results) counts[r.status]++;
  return counts;
}

/** The report for people: one mark per check, details indented under it, the fix last, then a summary. */
export function formatDoctor(results: readonly CheckResult[], out: Pick<Out, 'color'>): string {
  const lines: string[] = [];
  for (const r of results) {
    const { mark, color } = MARKS[r.status];
    // A detail's lines are ours; what they quote (paths, settings, a program's output) is shown escaped.
    const [first = '', ...rest] = r.detail.split('\n').map(safeText);
    lines.push(`${paint(out, color, mark)} ${paint(out, 'bold', safeText(r.title))}: ${first}`);
    for (const line of rest) lines.push(`    ${line}`);
    if (r.fix && r.status !== 'ok')
      lines.push(`    ${paint(out, 'cyan', r.status === 'skip' ? 'hint:' : 'fix:')} ${safeText(r.fix)}`);
  }
  const c = countStatuses(results);
  const summary = `${c.ok} ok, ${c.warn} warning${c.warn === 1 ? '' : 's'}, ${c.fail} failed, ${c.skip} skipped`;
  lines.push(
    '',
    c.fail > 0
      ? paint(out, 'red', summary)
      : c.warn > 0
        ? paint(out, 'yellow', summary)
        : paint(out, 'green', summary),
  );
  return `${lines.join('\n')}\n`;
}
