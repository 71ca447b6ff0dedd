import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { jsonLines } from '../../helpers/json-lines.js';

/**
 * A probe for what Droid lets a hook decide about a permission. `writeDroidProbeHook` writes one hook
 * program (plain Node, no hookd) that records every payload it is given and, on PreToolUse, answers by
 * marker words in the Execute command: `pre-allow` / `pre-ask` / `pre-deny` give
 * `hookSpecificOutput.permissionDecision` allow / ask / deny (reason `pre says <x>`), `pre-slow` never
 * answers (and records `sigterm` when told to stop), anything else no decision. On the first Notification it watches the session's jsonrpc log for `holdMs` and records
 * (`notification-hold`) whether a new `droid.request_permission` came out while it was still running.
 *
 * `droidWithSettings` makes a stand-in for the droid binary that first merges extra keys (e.g.
 * `commandDenylist`) into the settings file the harness wrote, then runs the real binary.
 */
export interface DroidProbeRecord {
  at: number;
  event: string;
  payload: Record<string, unknown>;
  promptSeenWhileRunning?: boolean;
}

export function writeDroidProbeHook(
  dir: string,
  options: { capture: string; rpcLog: string; holdMs: number },
): string {
  const file = join(dir, 'droid-probe-hook.cjs');
  const program = `
const fs = require('fs');
const capture = ${JSON.stringify(options.capture)};
const rpcLog = ${JSON.stringify(options.rpcLog)};
const holdMs = ${options.holdMs};
const payload = JSON.parse(fs.readFileSync(0, 'utf8'));
const event = payload.hook_event_name;
const record = (extra) =>
  fs.appendFileSync(capture, JSON.stringify({ at: Date.now(), event, payload, ...extra }) + '\\n');
const command = String((payload.tool_input && payload.tool_input.command) || '');
const prompts = () =>
  fs.existsSync(rpcLog)
    ? fs.readFileSync(rpcLog, 'utf8').split('\\n').filter(
        (l) => l.startsWith('<< ') && l.includes('"droid.request_permission"')).length
    : 0;
record({});
if (event === 'PreToolUse' && command.includes('pre-slow')) {
  process.on('SIGTERM', () => {
    record({ event: 'sigterm' });
    process.exit(143);
  });
  setInterval(() => {}, 1000);
} else if (event === 'PreToolUse') {
  for (const d of ['allow', 'ask', 'deny'])
    if (command.includes('pre-' + d))
      process.stdout.write(JSON.stringify({
        hookSpecificOutput: {
          hookEventName: 'PreToolUse',
          permissionDecision: d,
          permissionDecisionReason: 'pre says ' + d,
        },
      }));
} else if (event === 'Notification' && !fs.readFileSync(capture, 'utf8').includes('notification-hold')) {
  const before = prompts();
  const until = Date.now() + holdMs;
  const tick = () => {
    const seen = prompts() > before;
    if (seen || Date.now() >= until) record({ event: 'notification-hold', promptSeenWhileRunning: seen });
    else setTimeout(tick, 50);
  };
  tick();
}
`;
  writeFileSync(file, program);
  return `node ${file}`;
}

export function droidProbeRecords(capture: string): DroidProbeRecord[] {
  return existsSync(capture) ? jsonLines<DroidProbeRecord>(capture) : [];
}

export function droidCommandOf(r: DroidProbeRecord): string {
  const input = r.payload.tool_input as { command?: string } | undefined;
  return input?.command ?? '';
}

/** A `droid.request_permission` request (Droid's own permission prompt in jsonrpc mode). */
export interface DroidPrompt {
  id: string;
  params: Record<string, unknown>;
}

export function droidPromptsOf(rpcLog: string): DroidPrompt[] {
  if (!existsSync(rpcLog)) return [];
  const out: DroidPrompt[] = [];
  for (const line of readFileSync(rpcLog, 'utf8').split('\n')) {
    if (!line.startsWith('<< ')) continue;
    try {
      const m = JSON.parse(line.slice(3)) as {
        method?: string;
        id?: unknown;
        params?: Record<string, unknown>;
      };
      if (m.method === 'droid.request_permission') out.push({ id: String(m.id), params: m.params ?? {} });
    } catch {
      // not a message
    }
  }
  return out;
}

/** A shell script standing in for `bin` that merges `extra` into ~/.factory/settings.json first. */
export function droidWithSettings(dir: string, bin: string, extra: Record<string, unknown>): string {
  const file = join(dir, 'droid-with-settings.sh');
  const merge = `const fs=require("fs");const f=process.env.HOME+"/.factory/settings.json";fs.writeFileSync(f,JSON.stringify({...JSON.parse(fs.readFileSync(f,"utf8")),...${JSON.stringify(extra)}},null,2))`;
  writeFileSync(
    file,
    `#!/bin/sh\nnode -e '${merge.replace(/'/g, `'\\''`)}' || exit 70\nexec '${bin}' "$@"\n`,
    { mode: 0o755 },
  );
  return file;
}
