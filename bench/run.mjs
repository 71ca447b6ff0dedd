#!/usr/bin/env node
// Runs hookd's benchmarks (docs/performance.md says what each measures and its target).
//   npm run bench                      the standard set, one after another, each with its default rounds
//   npm run bench -- hook fast-path 20 the named benchmarks; arguments after a name go to that benchmark
//   npm run bench -- --list            what there is
// Each benchmark runs in its own process without NODE_EXTRA_CA_CERTS (which slows every Node start and
// would hide hookd's own cost) against the built dist/ (`npm run build` first) and writes its figures to
// bench/results/. The run stops at the first benchmark that fails, with its exit code.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));

// name -> what it measures; `standard` ones run when no name is given (the others take long or need an
// agent binary).
const BENCHMARKS = {
  hook: { standard: true, about: 'the Node hook path and the per-command overhead' },
  'cli-start': { standard: true, about: 'CLI start-up beside `node -e 0`' },
  'fast-path': { standard: true, about: 'the native client as the agents run it, daemon up and down' },
  'stop-path': { standard: true, about: 'a Stop event to its webhook and desktop notification' },
  'daemon-spawn': { standard: true, about: 'commands through the spawner vs child_process' },
  'daemon-latency': { standard: true, about: 'event to webhook POST on loopback' },
  'daemon-hook-walltime': { standard: true, about: 'the hook wall time with the daemon up' },
  'daemon-ingest': { standard: false, about: 'daemon ingest rate, 50,000 events (long)' },
  'daemon-rss': { standard: false, about: 'daemon memory over 50,000 events (long)' },
  'droid-hook-time': { standard: false, about: "Droid's own hook time (needs the e2e agent cache)" },
};

function usage() {
  const lines = Object.entries(BENCHMARKS).map(
    ([name, b]) => `  ${name.padEnd(22)}${b.standard ? '*' : ' '} ${b.about}`,
  );
  return `usage: npm run bench -- [name [args...]]...   (* = in the standard set)\n${lines.join('\n')}\n`;
}

/** The command line as a list of [name, args]: every argument up to the next name belongs to the name. */
function plan(argv) {
  if (argv.length === 0) {
    return Object.keys(BENCHMARKS)
      .filter((name) => BENCHMARKS[name].standard)
      .map((name) => [name, []]);
  }
  const runs = [];
  for (const arg of argv) {
    if (Object.hasOwn(BENCHMARKS, arg)) runs.push([arg, []]);
    else if (runs.length > 0) runs.at(-1)[1].push(arg);
    else throw new Error(`unknown benchmark "${arg}"`);
  }
  return runs;
}

const argv = process.argv.slice(2);
if (argv.includes('--list') || argv.includes('--help') || argv.includes('-h')) {
  process.stdout.write(usage());
  process.exit(0);
}
let runs;
try {
  runs = plan(argv);
} catch (error) {
  process.stderr.write(`${error.message}\n${usage()}`);
  process.exit(2);
}
if (!existsSync(join(HERE, '..', 'dist', 'hookd.cjs'))) {
  process.stderr.write('dist/ is missing: run `npm run build` first\n');
  process.exit(2);
}
const env = { ...process.env };
delete env.NODE_EXTRA_CA_CERTS;
for (const [name, args] of runs) {
  process.stdout.write(`\n== ${name} ${args.join(' ')}\n`);
  const ran = spawnSync(process.execPath, [join(HERE, `${name}.mjs`), ...args], { stdio: 'inherit', env });
  const code = ran.status ?? 1;
  if (code !== 0) {
    process.stderr.write(`${name} failed (${ran.error?.message ?? ran.signal ?? `exit ${code}`})\n`);
    process.exit(code);
  }
}
