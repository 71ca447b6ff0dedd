import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { killHard } from '../../helpers/procs.js';
import { makeTempDir } from '../../helpers/temp.js';
import { FUZZ_SEED } from './arbitraries.js';

// hookd's C programs under AddressSanitizer and UBSan: scripts/fuzz-native.sh builds the fuzz targets
// (test/fuzz/, docs/fuzzing.md) into a temp dir and runs them with the fixed seed and fixed case counts;
// the time budget given to the script only caps a slow machine (printed, never asserted). gcc with
// libasan and libubsan is required: without them these tests fail with the script's message.

const ROOT = resolve(import.meta.dirname, '../../..');
const SCRIPT = join(ROOT, 'scripts/fuzz-native.sh');
const SEED = String(FUZZ_SEED);
let tmp: ReturnType<typeof makeTempDir>;
const running = new Set<number>();

beforeAll(() => {
  tmp = makeTempDir();
});
afterEach(() => {
  for (const pid of running) killHard(pid);
  running.clear();
});
afterAll(() => tmp.cleanup());

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the script (its own process group, killed by pid if the test ends first). */
function fuzz(args: string[]): Promise<Run> {
  return new Promise((done, fail) => {
    const child = spawn('bash', [SCRIPT, ...args], {
      cwd: ROOT,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (child.pid) running.add(child.pid);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', fail);
    child.on('close', (code) => {
      if (child.pid) running.delete(child.pid);
      done({ code, stdout, stderr });
    });
  });
}

/** A counter of a target's summary line ("... 12 checked byte for byte ..."). */
function counter(summary: string, pattern: RegExp): number {
  const match = pattern.exec(summary);
  expect(match, `${pattern} in ${summary}`).not.toBeNull();
  return Number(match![1]);
}

describe('the native programs under ASan and UBSan (scripts/fuzz-native.sh, fixed seed)', () => {
  it('the spawner takes any frame stream: no memory error, leak, hang or lost descriptor; bad frames exit 2', async () => {
    const run = await fuzz([
      'spawner',
      '--seed',
      SEED,
      '--cases',
      '500',
      '--process-cases',
      '100',
      '--seconds',
      '16',
      '--out',
      join(tmp.dir, 'build'),
    ]);
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    // Both parts ran, and each check had something to check.
    for (const target of ['spawner', 'spawner-process']) {
      const at = run.stdout.indexOf(`fuzz ${target}: `, run.stdout.indexOf(`fuzz ${target}: seed`) + 1);
      expect(at, run.stdout).toBeGreaterThan(0);
      const summary = run.stdout.slice(at, run.stdout.indexOf('\n', run.stdout.indexOf('\n', at) + 1));
      expect(summary).toMatch(new RegExp(`^fuzz ${target}: \\d+ cases in .* no failure`));
      expect(counter(summary, /(\d+) cases in/)).toBeGreaterThan(20);
      expect(counter(summary, /(\d+) ended on a bad frame/)).toBeGreaterThan(0);
      expect(counter(summary, /(\d+) idle checks/)).toBeGreaterThan(0);
      expect(counter(summary, /(\d+) checked byte for byte/)).toBeGreaterThan(0);
    }
  }, 180_000);

  it('catches a planted off-by-one (the PATH search buffer one byte short) and replays it', async () => {
    const site = 'if (dlen + 1 + plen < sizeof buf) {';
    const source = readFileSync(join(ROOT, 'native/hookd-spawner.c'), 'utf8');
    expect(source.split(site).length - 1, `"${site}" in native/hookd-spawner.c`).toBe(1);
    const mutant = join(tmp.dir, 'hookd-spawner.c');
    writeFileSync(mutant, source.replace(site, 'if (dlen + 1 + plen <= sizeof buf) {'));
    const out = join(tmp.dir, 'mutant');
    const run = await fuzz([
      'spawner',
      '--seed',
      SEED,
      '--cases',
      '3000',
      '--process-cases',
      '0',
      '--spawner-source',
      mutant,
      '--out',
      out,
    ]);
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(1);
    expect(run.stderr).toContain(`FUZZ FAILURE: target spawner, seed ${SEED}, case `);
    expect(run.stderr).toContain('ERROR: AddressSanitizer: stack-buffer-overflow');
    expect(readdirSync(join(out, 'crashes'))).toHaveLength(1);

    // The printed command replays that one case, and it fails the same way.
    const replay = /replay the case: scripts\/fuzz-native\.sh (.*)/.exec(run.stderr)?.[1];
    expect(replay, run.stderr).toBeDefined();
    const again = await fuzz(replay!.split(' '));
    expect(again.code, `${again.stdout}\n${again.stderr}`).toBe(1);
    expect(again.stderr).toContain('ERROR: AddressSanitizer: stack-buffer-overflow');
  }, 180_000);
});
