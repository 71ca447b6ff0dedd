import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateConfigObject } from '../../../src/config/validate.js';
import { REPO_DIR } from '../../helpers/fixtures.js';

// Every hookd config shown in the README and docs must be one hookd accepts.
function configBlocks(file: string): { file: string; index: number; json: unknown }[] {
  const text = readFileSync(join(REPO_DIR, file), 'utf8');
  const blocks = [...text.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => m[1]!);
  return blocks.flatMap((block, index) => {
    let json: unknown;
    try {
      json = JSON.parse(block);
    } catch {
      return [];
    }
    const keys = json && typeof json === 'object' && !Array.isArray(json) ? Object.keys(json) : [];
    const isHookdConfig =
      keys.length > 0 &&
      keys.every((k) =>
        ['$schema', 'hooks', 'settings', 'notify', 'daemon', 'enrich', 'ledger', 'api'].includes(k),
      );
    return isHookdConfig && !keys.every((k) => k === 'hooks' && file === 'docs/install.md')
      ? [{ file, index, json }]
      : [];
  });
}

describe('config examples in the docs', () => {
  const blocks = [
    'README.md',
    'docs/daemon.md',
    'docs/api.md',
    'docs/enrich-ledger.md',
    'docs/sessions.md',
  ].flatMap(configBlocks);

  it('finds the README example', () => {
    expect(blocks.some((b) => b.file === 'README.md')).toBe(true);
  });

  it.each(blocks.map((b) => [`${b.file} block ${b.index}`, b] as const))(
    '%s is a valid config',
    (_name, block) => {
      const result = validateConfigObject(block.json, block.file);
      expect(result.ok ? [] : result.issues).toEqual([]);
    },
  );
});
