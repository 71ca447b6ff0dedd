#!/usr/bin/env node
// Appends every shell command the agent runs to a JSON-lines file (PostToolUse on the `shell` kind):
// time, session, cwd, command and, for Droid, the exit code from the tool response.
//   {"kinds": ["shell"], "hooks": [{"type": "command", "command": "node /path/to/hooks/log-commands.mjs",
//     "timeout": 5, "name": "command-log"}]}
// File: $HOOKD_COMMAND_LOG, else <hookd state dir>/commands.jsonl: $HOOKD_STATE_DIR, else
// $XDG_STATE_HOME/hookd (~/.local/state/hookd). Like every file hookd writes: 0600 in a 0700 folder,
// never through a symlink, and secrets in commands (tokens, passwords, Authorization headers) redacted.
import {
  chmodSync,
  closeSync,
  constants,
  fstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  writeSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

let payload;
try {
  payload = JSON.parse(readFileSync(0, 'utf8'));
} catch {
  process.exit(0);
}
const command = payload?.tool_input?.command;
if (typeof command !== 'string') process.exit(0);
const response = payload.tool_response;
const text = typeof response === 'string' ? response : JSON.stringify(response ?? '');
const exit = /\[Process exited with code (-?\d+)\]\s*$/.exec(text);
const stateDir =
  process.env.HOOKD_STATE_DIR ||
  join(process.env.XDG_STATE_HOME || join(homedir(), '.local', 'state'), 'hookd');
const file = process.env.HOOKD_COMMAND_LOG || join(stateDir, 'commands.jsonl');
mkdirSync(dirname(file), { recursive: true, mode: 0o700 });

/** Token-shaped values and secret assignments become [REDACTED]. */
function redact(text) {
  return text
    .replace(/\b(authorization:\s*)(bearer|basic|token)\s+[^\s"']+/gi, '$1$2 [REDACTED]')
    .replace(/\b(bearer)\s+[A-Za-z0-9._~+/=-]{8,}/gi, '$1 [REDACTED]')
    .replace(
      /\b([A-Z0-9_]*(?:TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY)[A-Z0-9_]*=)("[^"]*"|'[^']*'|[^\s;&|]+)/gi,
      '$1[REDACTED]',
    )
    .replace(/(--?(?:password|token|secret|api-key)[ =])("[^"]*"|'[^']*'|[^\s;&|]+)/gi, '$1[REDACTED]')
    .replace(
      /\b(gh[pousr]_[A-Za-z0-9]{20,}|xox[abpr]-[A-Za-z0-9-]{10,}|sk-[A-Za-z0-9_-]{16,}|AKIA[0-9A-Z]{16})\b/g,
      '[REDACTED]',
    )
    .replace(/(\/\/[^/\s:@]+:)[^@\s/]+@/g, '$1[REDACTED]@');
}
const record = {
  time: new Date().toISOString(),
  session: payload.session_id,
  cwd: payload.cwd,
  tool: payload.tool_name,
  command: redact(command),
  exitCode: exit ? Number(exit[1]) : (response?.exit_code ?? null),
};
const fd = openSync(
  file,
  constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0),
  0o600,
);
try {
  if ((fstatSync(fd).mode & 0o077) !== 0) chmodSync(file, 0o600);
  writeSync(fd, `${JSON.stringify(record)}\n`);
} finally {
  closeSync(fd);
}
