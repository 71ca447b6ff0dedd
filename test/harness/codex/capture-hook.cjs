#!/usr/bin/env node
'use strict';
// A plain hook command for recording what an agent hands its hooks (no hookd involved):
//   node capture-hook.cjs <spec.json> <label>
// appends {label, cwd, env, stdin, payload, socket?} as one JSON line to spec.out, then answers as
// spec.answers[label] says: {stdout?, stderr?, exit?}. With spec.socket, it first tries to connect to
// that unix socket and records "connected" or the error code (can a hook reach the user's runtime dir?).
const fs = require('node:fs');
const net = require('node:net');

const [specFile, label] = process.argv.slice(2);
const spec = JSON.parse(fs.readFileSync(specFile, 'utf8'));
let stdin = '';
try {
  stdin = fs.readFileSync(0, 'utf8');
} catch (error) {
  stdin = `<unreadable: ${error.code}>`;
}
let payload = null;
try {
  payload = JSON.parse(stdin);
} catch {
  payload = null;
}
const env = {};
for (const [key, value] of Object.entries(process.env)) {
  if (/^(CODEX|GEMINI|GOOGLE_|CLAUDE|HOME$|PWD$|XDG_RUNTIME_DIR$|SANDBOX)/.test(key)) env[key] = value;
}

function finish(socket) {
  const record = { label, cwd: process.cwd(), env, stdin, payload, ...(socket ? { socket } : {}) };
  fs.appendFileSync(spec.out, `${JSON.stringify(record)}\n`);
  const answer = (spec.answers || {})[label] || {};
  if (answer.stdout) process.stdout.write(answer.stdout);
  if (answer.stderr) process.stderr.write(answer.stderr);
  process.exitCode = answer.exit || 0;
}

if (spec.socket) {
  const conn = net.connect(spec.socket);
  conn.on('connect', () => {
    conn.destroy();
    finish('connected');
  });
  conn.on('error', (error) => finish(error.code || String(error)));
} else {
  finish(undefined);
}
