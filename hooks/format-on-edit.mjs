#!/usr/bin/env node
// Formats the file the agent just created or edited (PostToolUse on Edit|Create|Write|ApplyPatch).
// Uses the formatter configured for the extension if it is installed; otherwise does nothing.
//   {"matcher": "Edit|Create|Write", "hooks": [{"type": "command", "command": "node /path/to/hooks/format-on-edit.mjs",
//     "timeout": 20, "name": "format"}]}
// Override per extension: HOOKD_FORMAT_<EXT>="command args" (the file path is appended as one argument),
// e.g. HOOKD_FORMAT_PY="ruff format".
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { extname } from 'node:path';

const DEFAULTS = {
  '.js': 'prettier --write',
  '.mjs': 'prettier --write',
  '.cjs': 'prettier --write',
  '.ts': 'prettier --write',
  '.tsx': 'prettier --write',
  '.jsx': 'prettier --write',
  '.json': 'prettier --write',
  '.md': 'prettier --write',
  '.css': 'prettier --write',
  '.html': 'prettier --write',
  '.yaml': 'prettier --write',
  '.yml': 'prettier --write',
  '.py': 'ruff format',
  '.go': 'gofmt -w',
  '.rs': 'rustfmt',
  '.sh': 'shfmt -w',
};

let payload;
try {
  payload = JSON.parse(readFileSync(0, 'utf8'));
} catch {
  process.exit(0);
}
const file = payload?.tool_input?.file_path ?? payload?.tool_input?.path;
if (typeof file !== 'string' || !existsSync(file)) process.exit(0);
const ext = extname(file).toLowerCase();
const formatter = process.env[`HOOKD_FORMAT_${ext.slice(1).toUpperCase()}`] ?? DEFAULTS[ext];
if (!formatter) process.exit(0);
const [program, ...args] = formatter.split(/\s+/).filter(Boolean);
// The path is passed as an argument, never through a shell string.
const result = spawnSync(program, [...args, file], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 15_000 });
if (result.error?.code === 'ENOENT') process.exit(0); // formatter not installed here
if (result.status !== 0) {
  process.stderr.write(
    `format-on-edit: ${program} failed on ${file}: ${String(result.stderr ?? '').trim()}\n`,
  );
  process.exit(1);
}
process.stdout.write(`formatted ${file} with ${program}\n`);
