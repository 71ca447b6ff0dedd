import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_DIR } from '../helpers/fixtures.js';

// A plain clone must pass its own tests: nothing the project runs may read the `shared` directory that
// sits beside the repo in the team's workspace (a user who clones hookd never has it). The recorded
// payloads live in test/fixtures/ (see its README).

const ROOTS = ['src', 'test', 'bench', 'scripts', '.ci'];
const FILES = ['package.json', 'vitest.config.ts', 'eslint.config.js', 'tsconfig.json'];
// Recorded agent output: data, not code, quoted byte for byte.
const DATA_DIR = join('test', 'fixtures');
const SELF = join('test', 'unit', 'self-contained.test.ts');
const SHARED = 'shared';
const PATTERNS = [
  new RegExp(`\\.\\./+${SHARED}\\b`), // ../shared
  new RegExp(`['"]\\.\\.['"]\\s*,\\s*['"]${SHARED}['"]`), // join(..., '..', 'shared')
  new RegExp(`/work/${SHARED}\\b`), // the workspace's absolute path
];

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules' || [DATA_DIR, SELF].includes(relative(REPO_DIR, path))) return [];
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

describe('the repo is self-contained', () => {
  it('no source, test, bench, script or CI file points at ../shared', () => {
    const files = [
      ...ROOTS.flatMap((r) => walk(join(REPO_DIR, r))),
      ...FILES.map((f) => join(REPO_DIR, f)).filter((f) => {
        try {
          return statSync(f).isFile();
        } catch {
          return false;
        }
      }),
    ];
    expect(files.length).toBeGreaterThan(100);
    const hits = files.flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, i) =>
          PATTERNS.some((p) => p.test(line)) ? [`${relative(REPO_DIR, file)}:${i + 1}: ${line.trim()}`] : [],
        ),
    );
    expect(hits).toEqual([]);
  });

  it('catches each way of writing such a path', () => {
    const lines = [
      `const D = '/work/${SHARED}/fixtures';`,
      `join(ROOT, '..', '${SHARED}', 'fixtures')`,
      `see ../${SHARED}/tools/droid-harness`,
    ];
    for (const line of lines)
      expect(
        PATTERNS.some((p) => p.test(line)),
        line,
      ).toBe(true);
  });
});
