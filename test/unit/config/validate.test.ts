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
    expect(result.issues[0]?.fix).toMatch(/fix the syntax there/);
  });

  it('reports a "__proto__" event name or budget key as invalid instead of dropping it', () => {
    // As written in a file (JSON.parse makes "__proto__" an own property; an object literal would not).
    const text =
      '{"settings": {"eventBudgetSecByEvent": {"__proto__": 5}},' +
      ' "hooks": {"__proto__": [{"hooks": [{"type": "command", "command": "echo proto"}]}]}}';
    const result = validateConfigText(text, 'c.json');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const byPath = Object.fromEntries(result.issues.map((i) => [i.path, i]));
    expect(byPath['hooks.__proto__']?.message).toMatch(/"__proto__" is not a usable name/);
    expect(byPath['settings.eventBudgetSecByEvent.__proto__']?.message).toMatch(/not a usable name/);
    expect(result.issues).toHaveLength(2);
    // Under a channel table too, and once only where a strict object already reports it as unknown.
    const elsewhere = validateConfigText(
      '{"notify": {"channels": {"__proto__": {"type": "console"}}}, "settings": {"__proto__": 1}}',
      'c.json',
    );
    expect(elsewhere.ok ? [] : elsewhere.issues.map((i) => i.path).sort()).toEqual([
      'notify.channels.__proto__',
      'settings.__proto__',
    ]);
    // Any other unknown event name is kept, as the agent may send events hookd does not know yet.
    const other = validateConfigText(
      JSON.stringify({ hooks: { constructor: [{ hooks: [{ type: 'command', command: 'echo' }] }] } }),
      'c.json',
    );
    expect(other.ok && Object.hasOwn(other.config.hooks, 'constructor')).toBe(true);
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
