#!/usr/bin/env node
'use strict';
// A hook command's helper for doubled-entry tests: waits (at most 10 s) until `want` hook processes of
// one event are alive in this HOME, that is processes whose arguments hold `--event <event>` and whose
// environment has this HOME. Run from a guard, it keeps the first call running until the agent has
// started the second copy, so the test sees whether the copy waits for the first one's answer, whatever
// the machine's load. Ends at the deadline too: a copy that never comes shows in the test as a miss.
//   node await-copies.cjs <event> <want>
const { readdirSync, readFileSync } = require('node:fs');

const [event, wantText] = process.argv.slice(2);
const want = Number(wantText);
const home = `HOME=${process.env.HOME}`;
const deadline = Date.now() + 10_000;

function alive() {
  let n = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      const at = args.indexOf('--event');
      if (at < 0 || args[at + 1] !== event) continue;
      if (readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(home)) n++;
    } catch {
      // gone, or not ours to read
    }
  }
  return n;
}

(function poll() {
  if (alive() >= want || Date.now() > deadline) return;
  setTimeout(poll, 20);
})();
