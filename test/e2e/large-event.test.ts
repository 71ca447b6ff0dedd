import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithAgent } from '../harness/availability.js';
import { prepareClaudeHome, runClaude } from '../harness/claude/run-claude.js';
import { runRealDroid } from '../helpers/droid.js';
import { HOOKD_BIN } from '../helpers/fixtures.js';
import { isolatedEnv, makeTempDir } from '../helpers/temp.js';

// The real agents hand a hook the whole event, however large (both handed over a 100 MiB Write when
// measured; docs/hook.md, "Input limits"). A Write of a 10 MiB file must reach hookd's fail-closed
// guard, with every byte on its stdin, and the guard's exit 2 must block it.

const CONTENT = 'w'.repeat(10 * 1024 * 1024);

/** A guard that writes how many bytes it read and blocks. */
function setUp(prefix: string): {
  tmp: ReturnType<typeof makeTempDir>;
  env: Record<string, string>;
  seen: string;
} {
  const tmp = makeTempDir(prefix);
  const env = isolatedEnv(tmp.dir);
  const seen = join(tmp.dir, 'seen');
  const guard = `node -e 'const n=require("fs").readFileSync(0).length;require("fs").writeFileSync(process.env.SEEN,String(n));process.stderr.write("no files this large here\\n");process.exit(2)'`;
  writeFileSync(
    env.HOOKD_CONFIG!,
    JSON.stringify({
      hooks: {
        PreToolUse: [
          {
            matcher: 'Write|Create',
            hooks: [
              { type: 'command', name: 'size-guard', command: guard, onError: 'block', env: { SEEN: seen } },
            ],
          },
        ],
      },
    }),
  );
  return { tmp, env, seen };
}

describeWithAgent('claude', 'a 10 MiB Write under the real Claude Code 2.1.330', (bin) => {
  let box: ReturnType<typeof setUp>;
  beforeAll(() => {
    box = setUp('hkl-');
  });
  afterAll(() => box.tmp.cleanup());

  it('reaches the fail-closed guard whole, and is blocked', async () => {
    const home = box.env.HOME!;
    const work = join(box.tmp.dir, 'work');
    prepareClaudeHome(home, work);
    const command = `node ${HOOKD_BIN} hook --agent claude --event PreToolUse`;
    writeFileSync(
      join(home, '.claude', 'settings.json'),
      JSON.stringify({ hooks: { PreToolUse: [{ matcher: '', hooks: [{ type: 'command', command }] }] } }),
    );
    const run = await runClaude({
      bin,
      home,
      work,
      outDir: join(box.tmp.dir, 'out'),
      mode: 'print',
      env: box.env,
      prompt: 'Write big.txt',
      script: [{ write: { path: 'big.txt', content: CONTENT } }, { text: 'done' }],
    });
    expect(Number(readFileSync(box.seen, 'utf8'))).toBeGreaterThan(CONTENT.length);
    expect(existsSync(join(work, 'big.txt'))).toBe(false);
    const told = JSON.stringify(run.requests.at(-1)?.body ?? '');
    expect(told).toContain('no files this large here');
  });
});

describeWithAgent('droid', 'a 10 MiB Create under the real Droid 0.225.2', () => {
  let box: ReturnType<typeof setUp>;
  beforeAll(() => {
    box = setUp('hkl-');
  });
  afterAll(() => box.tmp.cleanup());

  it('reaches the fail-closed guard whole, and is blocked', async () => {
    const out = join(box.tmp.dir, 'out');
    mkdirSync(out);
    const command = `node ${HOOKD_BIN} hook --agent droid --event PreToolUse`;
    const run = await runRealDroid({
      outDir: out,
      env: box.env,
      hooksJson: { PreToolUse: [{ matcher: '', hooks: [{ type: 'command', command }] }] },
      mode: 'exec',
      prompt: 'Create big.txt',
      script: [{ tool: 'write', input: { path: 'big.txt', content: CONTENT } }, { text: 'done' }],
    });
    expect(run.rc).toBe(0);
    expect(Number(readFileSync(box.seen, 'utf8'))).toBeGreaterThan(CONTENT.length);
    expect(existsSync(join(run.work, 'big.txt'))).toBe(false);
    expect(run.fakeModelLog).toContain('no files this large here');
  });
});
