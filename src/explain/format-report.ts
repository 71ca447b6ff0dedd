import type { HookReport } from '../hook-path/process-event.js';
import { formatDuration, paint, safeText, type Out } from '../terminal/output.js';
import { failed, type CommandEnd } from '../events/failed.js';

function status(r: HookReport['ran'][number]): string {
  const res = r.result;
  if (res.spawnError) return `could not start: ${res.spawnError}`;
  if (res.timedOut)
    return `killed (${res.killedBy === 'budget' ? 'event budget' : `timeout ${r.planned.timeoutMs} ms`})`;
  if (res.exitCode === null) return `signal ${res.signal}`;
  return `exit ${res.exitCode}`;
}

/** A command's output, several lines by design: each line escaped (safeText) and prefixed. */
function indent(text: string, prefix: string): string {
  return text
    .trimEnd()
    .split('\n')
    .map((line) => prefix + safeText(line))
    .join('\n');
}

/** A person-readable account of one event through the hook path. */
/**
 * How a command ended, at a glance: ✓ ran and succeeded, ⊘ a guard decided to block (exit 2 of a
 * blocking command: no failure, see events/failed.ts), ✗ failed.
 */
export function commandMark(out: Pick<Out, 'color'>, end: CommandEnd, blocking: boolean): string {
  if (failed(end, blocking)) return paint(out, 'red', '✗');
  if (end.exitCode === 2) return paint(out, 'yellow', '⊘');
  return paint(out, 'green', '✓');
}

/**
 * What the agent gets from `hookd hook` for this event, as it gets it: the exit code (0, 2 for a block,
 * 1 for a command's error under Droid), who decided, and what is on stdout and stderr.
 */
function replyLine(reply: HookReport['reply'], out: Pick<Out, 'color'>): string {
  const said = [
    reply.stdout.trim() ? `stdout: ${reply.stdout.trim().slice(0, 300)}` : '',
    reply.stderr.trim() ? `stderr: ${reply.stderr.trim().slice(0, 300)}` : '',
  ].filter(Boolean);
  const text = `  agent gets exit ${reply.exitCode}${reply.decidedBy ? ` from ${reply.decidedBy}` : ''}${said.length > 0 ? `, ${said.join(', ')}` : ', no output'}`;
  return paint(out, reply.exitCode === 0 && said.length === 0 ? 'gray' : 'yellow', safeText(text));
}

export function formatReport(report: HookReport, out: Pick<Out, 'color'>): string {
  // The event's fields, file names, command names and outputs are shown escaped (safeText), never raw.
  const lines: string[] = [];
  if (report.rejected) {
    lines.push(paint(out, 'red', `rejected: ${safeText(report.rejected.detail)}`));
    if (report.rejected.deadLetter) lines.push(`  kept in ${safeText(report.rejected.deadLetter)}`);
    return `${lines.join('\n')}\n`;
  }
  const ev = report.event!;
  const tool = typeof ev.payload.tool_name === 'string' ? ` ${ev.payload.tool_name}` : '';
  lines.push(
    paint(out, 'bold', safeText(`${ev.name}${tool}`)) +
      paint(out, 'gray', safeText(`  agent ${ev.agent}  session ${ev.sessionId ?? '-'}  event ${ev.id}`)),
  );
  for (const source of report.config?.sources ?? []) {
    if (!source.ok)
      lines.push(
        paint(out, 'red', `  config ${safeText(source.file)} is invalid and was ignored (hookd validate)`),
      );
  }
  if (report.ran.length === 0) lines.push(paint(out, 'gray', '  no command matched'));
  for (const r of report.ran) {
    const mark = commandMark(out, r.result, r.planned.spec.blocking);
    lines.push(
      `  ${mark} ${safeText(r.planned.name)}  ${safeText(status(r))}  ${formatDuration(r.result.durationMs)}${r.planned.spec.blocking ? '  [blocking]' : ''}`,
    );
    const stdout = r.result.stdout.tailText(600);
    const stderr = r.result.stderr.tailText(600);
    if (stdout.trim()) lines.push(paint(out, 'gray', indent(stdout, '      stdout| ')));
    if (stderr.trim()) lines.push(paint(out, 'gray', indent(stderr, '      stderr| ')));
  }
  for (const s of report.skipped)
    lines.push(paint(out, 'gray', safeText(`  - entry ${s.entry} skipped: ${s.reason}`)));
  lines.push(replyLine(report.reply, out));
  if (report.handoff)
    lines.push(
      paint(
        out,
        'gray',
        safeText(
          `  daemon: ${report.handoff.outcome}${report.handoff.error ? ` (${report.handoff.error})` : ''}`,
        ),
      ),
    );
  return `${lines.join('\n')}\n`;
}

/** The same report as plain data for --json. */
export function reportJson(report: HookReport): unknown {
  return {
    event: report.event
      ? {
          id: report.event.id,
          name: report.event.name,
          sessionId: report.event.sessionId,
          agent: report.event.agent,
        }
      : null,
    rejected: report.rejected ?? null,
    configErrors: (report.config?.sources ?? []).flatMap((s) => s.issues),
    commands: report.ran.map((r) => ({
      name: r.planned.name,
      command: r.planned.spec.command,
      blocking: r.planned.spec.blocking,
      exitCode: r.result.exitCode,
      signal: r.result.signal,
      timedOut: r.result.timedOut,
      killedBy: r.result.killedBy,
      spawnError: r.result.spawnError ?? null,
      durationMs: Math.round(r.result.durationMs * 10) / 10,
      stdout: r.result.stdout.text(),
      stderr: r.result.stderr.text(),
    })),
    skipped: report.skipped,
    reply: report.reply,
    handoff: report.handoff ?? null,
    durationMs: report.durationMs,
  };
}
