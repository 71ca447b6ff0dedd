#!/usr/bin/env node
// Blocking guard for shell calls (Droid's Execute, Claude Code's and Codex's Bash, Gemini's
// run_shell_command: the tool kind `shell`): refuses commands that destroy data
// or pipe the network into a shell. Wire it as a `blocking: true` PreToolUse command; exit 2 with a
// reason on stderr makes the agent skip the call and tells the model why.
//   {"kinds": ["shell"], "hooks": [{"type": "command", "command": "node /path/to/hooks/guard-execute.mjs",
//     "blocking": true, "timeout": 5, "name": "guard"}]}
// Extra patterns: HOOKD_GUARD_DENY="regex1;;regex2".
import { readFileSync } from 'node:fs';

const RULES = [
  [
    /\brm\s+(-[a-zA-Z]*[rR][a-zA-Z]*\s+-?[a-zA-Z]*f|-[a-zA-Z]*f[a-zA-Z]*\s+-?[a-zA-Z]*[rR]|-[a-zA-Z]*[rR][a-zA-Z]*f|-[a-zA-Z]*f[a-zA-Z]*[rR])[a-zA-Z]*\s+(\/|~|\$HOME|\*)(\s|$)/,
    'recursive forced delete of /, ~ or *',
  ],
  [/\bmkfs(\.\w+)?\b/, 'formatting a filesystem'],
  [/\bdd\b[^|;&]*\bof=\/dev\//, 'dd onto a device'],
  [/\b(curl|wget)\b[^|;&]*\|\s*(sudo\s+)?(ba|z|da)?sh\b/, 'piping a download into a shell'],
  [/\bgit\s+push\b[^;&|]*(--force\b|-f\b)[^;&|]*\b(main|master)\b/, 'force-pushing main/master'],
  [/:\(\)\s*\{\s*:\|:&\s*\};:/, 'a fork bomb'],
  [/\bchmod\s+-R\s+777\s+\//, 'opening permissions on /'],
];

let payload;
try {
  payload = JSON.parse(readFileSync(0, 'utf8'));
} catch {
  process.exit(0); // not our business: never block on input we cannot read
}
const command = payload?.tool_input?.command;
if (typeof command !== 'string') process.exit(0);
const extra = (process.env.HOOKD_GUARD_DENY ?? '')
  .split(';;')
  .filter(Boolean)
  .map((source) => [new RegExp(source), `matches HOOKD_GUARD_DENY pattern ${source}`]);
// The command as quoted text: the agent shows the reason to the model and may print it, so no control
// character of the command (a terminal escape, a line break) goes out raw, and a huge command is cut.
const MAX_SHOWN = 300;
const quoted = (text) => {
  const cut = text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}...` : text;
  const shown = JSON.stringify(cut).replace(
    /[\u007f-\u009f\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return text.length > MAX_SHOWN ? `${shown} (${text.length} characters)` : shown;
};
for (const [pattern, why] of [...RULES, ...extra]) {
  if (pattern.test(command)) {
    process.stderr.write(
      `Blocked by hookd guard: ${why}. Command: ${quoted(command)}\nAsk the user to run it themselves if it is really intended.\n`,
    );
    process.exit(2);
  }
}
process.exit(0);
