import { formatDuration, paint, safeData, type Out } from '../terminal/output.js';
import type { Explanation } from './explain-event.js';
import { untrustedText } from '../config/trust.js';

function quote(text: string, max = 80): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return JSON.stringify(line.length > max ? `${line.slice(0, max - 1)}…` : line);
}

/** The explanation for people: the event, then what would run, then what would notify, each with why not. */
export function formatExplanation(explanation: Explanation, out: Pick<Out, 'color'>): string {
  // The payload's fields, a project config's commands and matchers, rendered titles: escaped before use.
  const x = safeData(explanation);
  const lines: string[] = [];
  const gray = (text: string) => paint(out, 'gray', text);
  const ev = x.event;
  const matcher = ev.matcher ? `  ${ev.matcher.field} ${JSON.stringify(ev.matcher.value)}` : '';
  const agentFrom =
    ev.agentFrom === '--agent'
      ? ' (--agent)'
      : ev.agentFrom === 'guessed'
        ? ' (guessed; --agent to say)'
        : '';
  lines.push(
    `${paint(out, 'bold', ev.name)}${matcher}` +
      gray(`  agent ${ev.agent}${agentFrom}  session ${ev.sessionId ?? '-'}  cwd ${ev.cwd ?? '-'}`),
  );
  if (x.disabled) lines.push(paint(out, 'yellow', x.disabled));
  for (const p of x.paths ?? []) {
    const why = p.reasons.length > 0 ? ` (needed: ${p.reasons.join(', ')})` : '';
    if (p.path === 'not wired')
      lines.push(
        paint(
          out,
          p.reasons.length > 0 ? 'yellow' : 'gray',
          `path (${p.agent}): not wired: the agent does not send ${ev.name} to hookd${p.shadowedBy ? ` (hookd's entry in ${p.file} never runs: ${p.shadowedBy} names ${ev.name})` : ''}${p.reasons.length > 0 ? `, though the config needs it${why}; run hookd install --agent ${p.agent}` : ''}`,
        ),
      );
    else
      lines.push(
        (p.off ? (t: string) => paint(out, 'red', t) : gray)(
          `path (${p.agent}): ${p.path}${p.matcher ? ` [matcher ${p.matcher}]` : ''}${why || ' (nothing in the config for it)'} in ${p.file ?? '?'}${p.off ? `, but the agent runs no hooks: ${p.off}` : ''}`,
        ),
      );
  }
  for (const f of x.config.files) {
    if (!f.exists) continue;
    if (f.trust && f.trust.state !== 'trusted')
      lines.push(
        paint(
          out,
          'red',
          `config ${f.file} (${f.level}) is ${untrustedText(f.trust)} and ignored (to use it: hookd trust <dir>)`,
        ),
      );
    if (f.ok)
      lines.push(gray(`config ${f.file} (${f.level}${f.trust?.state === 'trusted' ? ', trusted' : ''})`));
    else {
      lines.push(
        paint(
          out,
          'red',
          f.lastGood
            ? `config ${f.file} (${f.level}) is invalid; the last config that validated (saved ${f.lastGood.savedAt}) is used:`
            : `config ${f.file} (${f.level}) is invalid and ignored:`,
        ),
      );
      for (const issue of f.issues)
        lines.push(`  ${issue.path}: ${issue.message}${issue.fix ? ` (fix: ${issue.fix})` : ''}`);
    }
  }

  const c = x.commands;
  lines.push('', paint(out, 'bold', `Commands: ${c.run.length} would run`));
  for (const cmd of c.run) {
    const flags = [
      cmd.blocking ? 'blocking' : '',
      cmd.context ? 'context' : '',
      cmd.kind !== undefined ? `kind ${cmd.kind}` : '',
    ].filter(Boolean);
    lines.push(
      `  ${paint(out, 'green', '▸')} ${cmd.name}  ${gray(quote(cmd.command))}  timeout ${formatDuration(cmd.timeoutMs)}${flags.length ? `  [${flags.join(', ')}]` : ''}`,
    );
  }
  for (const e of c.notRun)
    lines.push(
      `  ${gray('-')} entry ${e.entry} (${e.commands.join(', ') || 'no commands'}) not run: ${e.reason}`,
    );
  for (const name of c.disabled) lines.push(`  ${gray('-')} ${name} not run: disabled (enabled: false)`);
  if (c.run.length === 0 && c.notRun.length === 0 && c.disabled.length === 0)
    lines.push(gray(`  no entries for ${ev.name} under hooks`));

  const n = x.notifications;
  lines.push(
    '',
    paint(
      out,
      'bold',
      `Notifications: ${n.fire.length} rule${n.fire.length === 1 ? '' : 's'} would fire${n.builtInRules ? ' (built-in default rules: no notify.rules written)' : ''}`,
    ),
  );
  if (n.off) lines.push(paint(out, 'yellow', `  ${n.off}`));
  for (const f of n.fire) {
    const when = f.heldUntil ? `  held by quiet hours until ${f.heldUntil}, then sent in a digest` : '';
    const burst = f.coalesced ? '  (coalesced with other events of a burst)' : '';
    const wait = f.waitingHoldMs
      ? `  held ${f.waitingHoldMs} ms: cancelled if the session moves on first (a prompt, a tool, a permission answer)`
      : '';
    lines.push(
      `  ${paint(out, 'green', '▸')} ${f.rule} → ${f.channels.join(', ')}  ${quote(f.title, 60)}${when}${wait}${burst}`,
    );
    if (f.body) lines.push(gray(`      ${quote(f.body, 100)}`));
    if (f.ladder) lines.push(`      then, while the session is not answered: ${f.ladder}`);
    if (f.presence) lines.push(gray(`      presence ${f.presence}`));
    if (f.breakthrough) lines.push(gray('      goes through quiet hours (breakthrough)'));
    for (const p of f.channelProblems) lines.push(paint(out, 'yellow', `      ! ${p}`));
  }
  for (const s of n.notFire) lines.push(`  ${gray('-')} ${s.rule} would not fire: ${s.reason}`);
  lines.push(gray(`  ${n.noiseState.note}`));
  if (n.ladders) {
    lines.push(
      `  escalation ladders of this session (${n.ladders.via === 'daemon' ? 'the running daemon' : 'the journal: the daemon is not running'}):`,
    );
    for (const line of n.ladders.lines) lines.push(`    ${line}`);
  }
  if (x.notes.length > 0) lines.push('', ...x.notes.map((note) => gray(`note: ${note}`)));
  return `${lines.join('\n')}\n`;
}
