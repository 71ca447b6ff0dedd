// `npm run check`: the typecheck, the lint and the format check, run at the same time. Each keeps about
// one core busy: on two cores the three took 54 to 65 s together against 72 to 74 s one after another.
// Each one's output is printed whole once it is done, in a fixed order, followed by a line that says how
// it went; the exit code is 1 when any of them failed.
//   node scripts/check.mjs
import { spawn } from 'node:child_process';

const CHECKS = ['typecheck', 'lint', 'format:check'];

/** Runs `npm run --silent <name>`, its stdout and stderr kept together in the order they came. */
function run(name) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn('npm', ['run', '--silent', name], { stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks = [];
    child.stdout.on('data', (chunk) => chunks.push(chunk));
    child.stderr.on('data', (chunk) => chunks.push(chunk));
    const done = (code, why) =>
      resolve({ name, code, why, output: Buffer.concat(chunks), seconds: (Date.now() - started) / 1000 });
    child.on('error', (error) => done(1, error.message));
    child.on('close', (code, signal) => done(code ?? 1, signal ? `killed by ${signal}` : undefined));
  });
}

const results = CHECKS.map(run);
let failed = false;
for (const pending of results) {
  const { name, code, why, output, seconds } = await pending;
  process.stdout.write(output);
  const how = code === 0 ? 'ok' : `FAILED (${why ?? `exit ${code}`})`;
  process.stdout.write(`check: ${name} ${how} in ${seconds.toFixed(1)} s\n`);
  if (code !== 0) failed = true;
}
process.exitCode = failed ? 1 : 0;
