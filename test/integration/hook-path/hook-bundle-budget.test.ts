import { existsSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_DIR } from '../../helpers/fixtures.js';

// `hookd hook` is the fallback of every event (daemon down, no native client): what dist/hook.cjs holds
// is parsed on each one. The budget keeps the common path small; rare code goes to lazy chunks
// (scripts/build.mjs), which like the bundle load nothing but Node's built-ins.
const DIST = join(REPO_DIR, 'dist');
// Lower it as code leaves the bundle; what a new feature adds to the hook must come out of it elsewhere
// (a lazy chunk), not raise this.
const HOOK_BUNDLE_MAX_BYTES = 32 * 1024;
// The chunks the hook requires only when it needs them.
const CHUNKS = [
  'scan.cjs',
  'rare.cjs',
  'run.cjs',
  'config.cjs',
  'redact.cjs',
  'remote.cjs',
  'once.cjs',
  'kinds.cjs',
  'agents.cjs',
  'fallback.cjs',
];
const LAZY = [...CHUNKS.map((chunk) => `./${chunk}`), './validate.cjs', './client.cjs'];

function requiresOf(file: string): string[] {
  const text = readFileSync(join(DIST, file), 'utf8');
  return [...new Set([...text.matchAll(/\brequire\(\s*(["'`])([^"'`]+)\1\s*\)/g)].map((m) => m[2]!))];
}

const builtin = (id: string) => id.startsWith('node:') && builtinModules.includes(id.slice(5));

describe('the hook bundle', () => {
  it(`is at most ${HOOK_BUNDLE_MAX_BYTES / 1024} KB`, () => {
    expect(statSync(join(DIST, 'hook.cjs')).size).toBeLessThanOrEqual(HOOK_BUNDLE_MAX_BYTES);
  });

  it("requires only Node's built-ins and hookd's own lazy chunks", () => {
    const required = requiresOf('hook.cjs');
    expect(required.filter((id) => !builtin(id) && !LAZY.includes(id))).toEqual([]);
    for (const chunk of required.filter((id) => LAZY.includes(id)))
      expect(existsSync(join(DIST, chunk))).toBe(true);
  });

  it.each(CHUNKS)("the chunk %s requires only Node's built-ins", (chunk) => {
    expect(requiresOf(chunk).filter((id) => !builtin(id))).toEqual([]);
  });
});
