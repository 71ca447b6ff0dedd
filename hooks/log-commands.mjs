#!/usr/bin/env node
// Appends every shell command the agent runs to a JSON-lines file (PostToolUse on Execute|Bash):
// time, session, cwd, command and, for Droid, the exit code from the tool response.
//   {"matcher": "Execute|Bash", "hooks": [{"type": "command", "command": "node /path/to/hooks/log-commands.mjs",
//     "timeout": 5, "name": "command-log"}]}
// File: $HOOKD_COMMAND_LOG, else $XDG_STATE_HOME/hookd/commands.jsonl (~/.local/state/hookd/commands.jsonl).
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
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
const file =
  process.env.HOOKD_COMMAND_LOG ??
  join(process.env.XDG_STATE_HOME || join(homedir(), '.local', 'state'), 'hookd', 'commands.jsonl');
mkdirSync(dirname(file), { recursive: true });
const record = {
  time: new Date().toISOString(),
  session: payload.session_id,
  cwd: payload.cwd,
  tool: payload.tool_name,
  command,
  exitCode: exit ? Number(exit[1]) : (response?.exit_code ?? null),
};
appendFileSync(file, `${JSON.stringify(record)}\n`);
