import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { jsonLines } from '../../helpers/json-lines.js';

/**
 * A probe for what Claude Code lets a hook decide about a permission. `writeProbeHook` writes one hook
 * program (plain Node, no hookd) that records every payload it is given and answers by marker words in
 * the Bash command, so one scripted session tries several answers:
 *
 * PermissionRequest
 * - `pr-allow`: `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}`
 * - `pr-deny`: the same with `{"behavior":"deny","message":"remote says no"}`
 * - `pr-exit2`: exit 2 with `exit two says no` on stderr
 * - `pr-slow`: records `pr-slow-waiting`, never answers, records `sigterm` when it is told to stop
 * - `pr-hold`: no decision, but first watches the session's stream log for the permission prompt of
 *   this call for `holdMs`, and records whether the prompt was already out while the hook still ran
 * - anything else: exit 0, no output (no decision)
 *
 * PreToolUse
 * - `pre-allow` / `pre-ask` / `pre-deny`: `permissionDecision` allow / ask / deny (reason `pre says <x>`)
 */
export interface ProbeRecord {
  at: number;
  event: string;
  payload: Record<string, unknown>;
  /** `pr-hold` only: whether the prompt for this call reached the stream while the hook was running. */
  promptSeenWhileRunning?: boolean;
}

export function writeProbeHook(
  dir: string,
  options: { capture: string; streamLog?: string; holdMs?: number },
): string {
  const file = join(dir, 'probe-hook.cjs');
  const program = `
const fs = require('fs');
const capture = ${JSON.stringify(options.capture)};
const streamLog = ${JSON.stringify(options.streamLog ?? '')};
const holdMs = ${options.holdMs ?? 2000};
const payload = JSON.parse(fs.readFileSync(0, 'utf8'));
const event = payload.hook_event_name;
const record = (extra) =>
  fs.appendFileSync(capture, JSON.stringify({ at: Date.now(), event, payload, ...extra }) + '\\n');
const command = String((payload.tool_input && payload.tool_input.command) || '');
const has = (word) => command.includes(word);
const out = (o) => process.stdout.write(JSON.stringify(o));
record({});
if (event === 'PermissionRequest') {
  const decide = (decision) =>
    out({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision } });
  if (has('pr-allow')) decide({ behavior: 'allow' });
  else if (has('pr-deny')) decide({ behavior: 'deny', message: 'remote says no' });
  else if (has('pr-exit2')) {
    process.stderr.write('exit two says no');
    process.exit(2);
  } else if (has('pr-slow')) {
    process.on('SIGTERM', () => {
      record({ event: 'sigterm' });
      process.exit(143);
    });
    record({ event: 'pr-slow-waiting' });
    setInterval(() => {}, 1000);
  }
  else if (has('pr-hold')) {
    const until = Date.now() + holdMs;
    const seen = () =>
      fs.existsSync(streamLog) &&
      fs.readFileSync(streamLog, 'utf8').split('\\n').some(
        (l) => l.startsWith('<< ') && l.includes('can_use_tool') && l.includes('pr-hold'));
    const tick = () => {
      const s = seen();
      if (s || Date.now() >= until) record({ event: 'hold-result', promptSeenWhileRunning: s });
      else setTimeout(tick, 50);
    };
    tick();
  }
} else if (event === 'PreToolUse') {
  for (const d of ['allow', 'ask', 'deny'])
    if (has('pre-' + d))
      out({
        hookSpecificOutput: {
          hookEventName: 'PreToolUse',
          permissionDecision: d,
          permissionDecisionReason: 'pre says ' + d,
        },
      });
}
`;
  writeFileSync(file, program);
  return `node ${file}`;
}

export function probeRecords(capture: string): ProbeRecord[] {
  return jsonLines<ProbeRecord>(capture);
}

/** The command of a Bash call a record is about ('' for other events). */
export function commandOf(r: ProbeRecord): string {
  const input = r.payload.tool_input as { command?: string } | undefined;
  return input?.command ?? '';
}

/** One `can_use_tool` control request (the permission prompt of stream-json mode) the driver received. */
export interface PromptRequest {
  request_id: string;
  tool_name: string;
  input: Record<string, unknown>;
  tool_use_id?: string;
  /** Whether Claude Code withdrew the prompt (`control_cancel_request`) before the driver answered. */
  cancelled: boolean;
  [key: string]: unknown;
}

/** Every permission prompt Claude Code put on the stream (stream.jsonl of a stream-mode run). */
export function promptsOf(outDir: string): PromptRequest[] {
  const file = join(outDir, 'stream.jsonl');
  if (!existsSync(file)) return [];
  const prompts: PromptRequest[] = [];
  const answered = new Set<string>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const sent = line.startsWith('>> ');
    if (!sent && !line.startsWith('<< ')) continue;
    let m: {
      type?: string;
      request_id?: string;
      request?: { subtype?: string };
      response?: { request_id?: string };
    };
    try {
      m = JSON.parse(line.slice(3)) as typeof m;
    } catch {
      continue; // a line the driver could not parse either
    }
    if (sent && m.type === 'control_response') answered.add(String(m.response?.request_id));
    else if (m.type === 'control_request' && m.request?.subtype === 'can_use_tool')
      prompts.push({
        ...(m.request as object),
        request_id: String(m.request_id),
        cancelled: false,
      } as PromptRequest);
    else if (m.type === 'control_cancel_request') {
      const prompt = prompts.find((p) => p.request_id === m.request_id);
      if (prompt && !answered.has(prompt.request_id)) prompt.cancelled = true;
    }
  }
  return prompts;
}

/** ~/.claude/settings.json of the throwaway HOME: the hooks and permission rules of a probe. */
export function writeClaudeSettings(home: string, settings: Record<string, unknown>): void {
  writeFileSync(join(home, '.claude', 'settings.json'), JSON.stringify(settings, null, 2));
}
