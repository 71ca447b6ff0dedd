import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));

export const REPO_DIR = resolve(HERE, '..', '..');
/** The real Droid 0.225.2 payloads and session stores, recorded (test/fixtures/README.md). */
export const FIXTURES_DIR = join(REPO_DIR, 'test', 'fixtures', 'droid-0.225.2');
/** The real Claude Code 2.1.330 payloads and transcripts, recorded (test/fixtures/README.md). */
export const CLAUDE_FIXTURES_DIR = join(REPO_DIR, 'test', 'fixtures', 'claude-code-2.1.330');
export const HOOKD_BIN = join(REPO_DIR, 'dist', 'hookd.cjs');

export interface Fixture {
  file: string;
  mode: 'exec' | 'jsonrpc';
  raw: string;
  payload: Record<string, unknown>;
}

export function droidFixtures(): Fixture[] {
  const out: Fixture[] = [];
  for (const mode of ['exec', 'jsonrpc'] as const) {
    const dir = join(FIXTURES_DIR, mode);
    for (const name of readdirSync(dir).sort()) {
      const raw = readFileSync(join(dir, name), 'utf8');
      out.push({ file: `${mode}/${name}`, mode, raw, payload: JSON.parse(raw) as Record<string, unknown> });
    }
  }
  return out;
}

export function fixture(path: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(FIXTURES_DIR, path), 'utf8')) as Record<string, unknown>;
}
