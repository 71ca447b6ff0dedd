#!/usr/bin/env node
'use strict';
// Writes test/fixtures/<agent>-<version>/ (Codex or Gemini runs) from the directories of three harness runs (runCodex or runGemini `dir`):
//   node save-fixtures.cjs <every-event run> <exit-2 run> <JSON-deny run> <dest>
// Each captured payload becomes NN-<Event>[-<tool>].json; each block run gives the hook's answer and the
// tool output the model got next. The runs' temp paths become /home/dev and /home/dev/projects/demo.
const fs = require('node:fs');
const path = require('node:path');

const [everyEvent, exit2, jsonDeny, dest] = process.argv.slice(2);
fs.mkdirSync(dest, { recursive: true });
const portable = (text, dir) =>
  text.split(`${dir}/home`).join('/home/dev').split(`${dir}/work`).join('/home/dev/projects/demo');
const records = (file) =>
  fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
const write = (name, value, dir) =>
  fs.writeFileSync(path.join(dest, name), `${portable(JSON.stringify(value, null, 2), dir)}\n`);

records(path.join(everyEvent, 'out/capture.jsonl')).forEach((c, i) => {
  const tool = c.payload.tool_name ? `-${c.payload.tool_name}` : '';
  write(`${String(i + 1).padStart(2, '0')}-${c.label}${tool}.json`, c.payload, everyEvent);
});
for (const [dir, name] of [
  [exit2, 'blocked-exit2'],
  [jsonDeny, 'blocked-json-deny'],
]) {
  const last = records(path.join(dir, 'out/model.jsonl')).at(-1);
  // Gemini: the functionResponse parts; Codex: the function_call_output items
  const seen = last.body.contents
    ? last.body.contents.flatMap((c) => c.parts.filter((p) => p.functionResponse))
    : last.body.input.filter((i) => i.type === 'function_call_output');
  write(`${name}-model-sees.json`, seen, dir);
  const spec = JSON.parse(fs.readFileSync(path.join(dir, 'out/capture-spec.json'), 'utf8'));
  write(`${name}-hook-answer.json`, spec.answers, dir);
}
