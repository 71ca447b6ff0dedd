import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLAUDE_FIXTURES_DIR } from './fixtures.js';

/** One recorded Claude Code 2.1.330 payload (test/fixtures/claude-code-2.1.330/<scenario>/NN-*.json). */
export interface ClaudeFixture {
  file: string;
  raw: string;
  payload: Record<string, unknown>;
}

export function claudeFixtures(scenarios = ['print', 'stream', 'extras', 'auto']): ClaudeFixture[] {
  return scenarios.flatMap((scenario) =>
    readdirSync(join(CLAUDE_FIXTURES_DIR, scenario))
      .filter((name) => /^\d+-.*\.json$/.test(name))
      .sort()
      .map((name) => {
        const raw = readFileSync(join(CLAUDE_FIXTURES_DIR, scenario, name), 'utf8');
        return { file: `${scenario}/${name}`, raw, payload: JSON.parse(raw) as Record<string, unknown> };
      }),
  );
}

export function claudeFixture(path: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(CLAUDE_FIXTURES_DIR, path), 'utf8')) as Record<string, unknown>;
}
