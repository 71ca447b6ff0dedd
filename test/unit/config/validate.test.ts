import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  configJsonSchema,
  suggest,
  validateConfigObject,
  validateConfigText,
} from '../../../src/config/validate.js';
import { formatIssues } from '../../../src/config/issues.js';
import { REPO_DIR } from '../../helpers/fixtures.js';

describe('config validation', () => {
  it("accepts the agent's own hooks object verbatim and fills in defaults", () => {
    const result = validateConfigObject(
      {
        hooks: {
          PostToolUse: [
            {
              matcher: 'Edit|Create',
              hooks: [{ type: 'command', command: 'prettier --write "$file"', timeout: 10 }],
            },
          ],
          Stop: [{ hooks: [{ type: 'command', command: 'echo done' }] }],
        },
      },
      'c.json',
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.config.settings.commandTimeoutSec).toBe(30);
    expect(result.config.hooks.PostToolUse?.[0]?.hooks[0]).toMatchObject({
      blocking: true,
      onError: 'allow',
      enabled: true,
      timeout: 10,
    });
  });

  it('reports every problem at once, each with its path, the bad value and a fix', () => {
    const result = validateConfigObject(
      {
        hooks: {
          PreToolUse: [
            { matcher: '(unclosed', hooks: [{ type: 'command', command: 'x', timeout: -1 }] },
            { hooks: [{ type: 'shell', command: '', blockng: true }] },
          ],
        },
        setings: {},
      },
      'c.json',
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const byPath = Object.fromEntries(result.issues.map((i) => [i.path, i]));
    expect(byPath['hooks.PreToolUse[0].matcher']?.message).toMatch(/invalid pattern/);
    expect(byPath['hooks.PreToolUse[0].matcher']?.value).toBe('(unclosed');
    expect(byPath['hooks.PreToolUse[0].hooks[0].timeout']?.value).toBe(-1);
    expect(byPath['hooks.PreToolUse[1].hooks[0].type']?.fix).toMatch(/"command"/);
    expect(byPath['hooks.PreToolUse[1].hooks[0].command']).toBeDefined();
    expect(byPath['hooks.PreToolUse[1].hooks[0].blockng']?.fix).toBe('did you mean "blocking"?');
    expect(byPath.setings?.fix).toBe('did you mean "settings"?');
    expect(result.issues).toHaveLength(6);
    const text = formatIssues(result.issues);
    expect(text).toContain('c.json: hooks.PreToolUse[0].hooks[0].timeout');
    expect(text).toContain('value: -1');
  });

  it('reports a JSON syntax error with its line and column', () => {
    const result = validateConfigText('{\n  "hooks": {,\n}', 'bad.json');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues[0]?.message).toMatch(/not valid JSON at line 2, column/);
    expect(result.issues[0]?.fix).toMatch(/JSON syntax/);
  });

  it('suggests only close names', () => {
    expect(suggest('timout', ['timeout', 'command'])).toBe('timeout');
    expect(suggest('zzz', ['timeout', 'command'])).toBeUndefined();
  });

  it('keeps the committed schema.json current (regenerate with: node dist/hookd.cjs schema > schema.json)', () => {
    const committed = JSON.parse(readFileSync(join(REPO_DIR, 'schema.json'), 'utf8')) as unknown;
    expect(committed).toEqual(JSON.parse(JSON.stringify(configJsonSchema())));
  });
});
