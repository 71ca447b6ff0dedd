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
// libasan and libubsan is required: without them these tests fail with the script's message. The
// client's fuzzer makes its runtime dirs under TMPDIR: this test's temp dir.

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
      env: { ...process.env, TMPDIR: tmp.dir },
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

/** The summary of a target's run: its "N cases in" line and the line of counters after it. */
function summaryOf(stdout: string, target: string): string {
  const at = stdout.indexOf(`fuzz ${target}: `, stdout.indexOf(`fuzz ${target}: seed`) + 1);
  expect(at, stdout).toBeGreaterThan(0);
  return stdout.slice(at, stdout.indexOf('\n', stdout.indexOf('\n', at) + 1));
}

/** A counter of a target's summary line ("... 12 checked byte for byte ..."). */
function counter(summary: string, pattern: RegExp): number {
  const match = pattern.exec(summary);
  expect(match, `${pattern} in ${summary}`).not.toBeNull();
  return Number(match![1]);
}

/**
 * Fuzzes a copy of native/<file> with one line changed (`site`: the line and its planted bug) and
 * expects the planted overflow reported with its seed and case and its input saved; the printed
 * command replays that one case, which fails the same way.
 */
async function expectPlantedBugCaught(
  file: string,
  [site, planted]: [string, string],
  args: (mutant: string) => string[],
): Promise<void> {
  const source = readFileSync(join(ROOT, 'native', file), 'utf8');
  expect(source.split(site).length - 1, `"${site}" in native/${file}`).toBe(1);
  const mutant = join(tmp.dir, file);
  writeFileSync(mutant, source.replace(site, planted));
  const out = join(tmp.dir, `mutant-${file}`);
  const [target] = args(mutant);
  const run = await fuzz([...args(mutant), '--seed', SEED, '--cases', '3000', '--out', out]);
  expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(1);
  expect(run.stderr).toContain(`FUZZ FAILURE: target ${target}, seed ${SEED}, case `);
  expect(run.stderr).toContain('ERROR: AddressSanitizer: stack-buffer-overflow');
  expect(readdirSync(join(out, 'crashes'))).toHaveLength(1);
  const replay = /replay the case: scripts\/fuzz-native\.sh (.*)/.exec(run.stderr)?.[1];
  expect(replay, run.stderr).toBeDefined();
  const again = await fuzz(replay!.split(' '));
  expect(again.code, `${again.stdout}\n${again.stderr}`).toBe(1);
  expect(again.stderr).toContain('ERROR: AddressSanitizer: stack-buffer-overflow');
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
      const summary = summaryOf(run.stdout, target);
      expect(summary).toMatch(new RegExp(`^fuzz ${target}: \\d+ cases in .* no failure`));
      expect(counter(summary, /(\d+) cases in/)).toBeGreaterThan(20);
      expect(counter(summary, /(\d+) ended on a bad frame/)).toBeGreaterThan(0);
      expect(counter(summary, /(\d+) idle checks/)).toBeGreaterThan(0);
      expect(counter(summary, /(\d+) checked byte for byte/)).toBeGreaterThan(0);
    }
  }, 180_000);

  it('catches a planted off-by-one (the PATH search buffer one byte short) and replays it', async () => {
    await expectPlantedBugCaught(
      'hookd-spawner.c',
      ['if (dlen + 1 + plen < sizeof buf) {', 'if (dlen + 1 + plen <= sizeof buf) {'],
      (mutant) => ['spawner', '--process-cases', '0', '--spawner-source', mutant],
    );
  }, 180_000);

  it('the client takes any answer of a daemon: exactly its exit and bytes, or the Node path before GO only', async () => {
    const run = await fuzz([
      'client',
      '--seed',
      SEED,
      '--cases',
      '600',
      '--seconds',
      '12',
      '--out',
      join(tmp.dir, 'build'),
    ]);
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    const summary = summaryOf(run.stdout, 'client');
    expect(summary).toMatch(/^fuzz client: \d+ cases in .* no failure/);
    expect(counter(summary, /(\d+) cases in/)).toBeGreaterThan(50);
    // Each kind of outcome was met and checked.
    expect(counter(summary, /(\d+) whole and checked byte for byte/)).toBeGreaterThan(0);
    expect(counter(summary, /(\d+) ended with the lost code/)).toBeGreaterThan(0);
    expect(counter(summary, /(\d+) direct/)).toBeGreaterThan(0);
    expect(counter(summary, /(\d+) with the stdin copy/)).toBeGreaterThan(0);
    expect(counter(summary, /(\d+) on a pipe/)).toBeGreaterThan(0);
    expect(counter(summary, /(\d+) with the acknowledged id/)).toBeGreaterThan(0);
    expect(counter(summary, /(\d+) refusing a runtime dir or listener/)).toBeGreaterThan(0);
    expect(counter(summary, /(\d+) requests checked/)).toBeGreaterThan(0);
    expect(counter(summary, /(\d+) chunks read one by one/)).toBeGreaterThan(0);
  }, 180_000);

  it('the client hands every stdin byte to the Node path on a pipe, also from a non-blocking stdin', async () => {
    // A corpus input: no stdin copy can be written (no space left), and reads of stdin now and then
    // find nothing yet (EAGAIN), as a non-blocking stdin does: the bytes that come later must follow.
    const input = join(ROOT, 'test/fuzz/corpus/client/19-nonblocking-stdin-no-copy.bin');
    const run = await fuzz([
      'client',
      '--seed',
      SEED,
      '--replay',
      input,
      '--case',
      '0',
      '--out',
      join(tmp.dir, 'build'),
    ]);
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stdout).toContain('fuzz client: the case passed');
  }, 180_000);

  it('catches a planted off-by-one in the client (a line of 512 bytes fits its line reader) and replays it', async () => {
    await expectPlantedBugCaught(
      'hookd-client.c',
      ['if (len >= cap) return -1;', 'if (len > cap) return -1;'],
      (mutant) => ['client', '--client-source', mutant],
    );
  }, 180_000);
});
