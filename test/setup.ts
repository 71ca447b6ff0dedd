import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { REPO_DIR } from './helpers/fixtures.js';

// Node warnings fail the suite: a warning is a bug we have not understood yet. Unit test files share a
// worker (no isolation), so this file runs once per test file in the same process: the listener is added
// once.
const FLAG = Symbol.for('hookd.test.warning-listener');
const registry = globalThis as { [FLAG]?: true };
if (!registry[FLAG]) {
  registry[FLAG] = true;
  process.on('warning', (warning) => {
    throw warning;
  });
}

// No test writes agent settings or hookd config into the checkout itself (a project-scope command run in
// the test process's own directory would): each file fails if the checkout's project-scope files changed
// while it ran.
const PROJECT_FILES = [
  '.factory',
  '.factory/settings.json',
  '.factory/hooks.json',
  '.factory/hooks',
  '.claude',
  '.claude/settings.json',
  '.claude/settings.local.json',
  '.gemini',
  '.gemini/settings.json',
  '.hookd',
  '.hookd/config.json',
].map((path) => join(REPO_DIR, path));
function stamp(): string {
  return PROJECT_FILES.map((path) => {
    try {
      return `${path} ${statSync(path).mtimeMs}`;
    } catch {
      return `${path} absent`;
    }
  }).join('\n');
}
let before = '';
beforeAll(() => {
  before = stamp();
});
afterAll(() => {
  const after = stamp();
  if (after !== before)
    throw new Error(`a test of this file changed the checkout's project settings:\n${after}`);
});
