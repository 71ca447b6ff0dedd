import { describe, expect, it } from 'vitest';
import { checkTemplate, renderTemplate } from '../../../src/notify/template.js';
import { globToRegExp, matchesProject } from '../../../src/notify/glob.js';
import { quietStateAt } from '../../../src/notify/quiet-hours.js';
import { interpolateEnv } from '../../../src/config/interpolate.js';

describe('renderTemplate', () => {
  const ctx = { session: { title: 'Fix it', tokens: 1234 }, msg: 'line one\nline two', n: 65_000, empty: '' };
  it('substitutes paths and applies filters', () => {
    expect(renderTemplate('{{ session.title }}: {{msg | firstline | upper}}', ctx)).toBe('Fix it: LINE ONE');
    expect(renderTemplate('{{missing | default:"none"}} {{empty | default:"-"}}', ctx)).toBe('none -');
    expect(renderTemplate('{{n | duration}} {{msg | truncate:5}}', ctx)).toBe('1m05s line…');
    expect(renderTemplate('{{session | json}}', ctx)).toBe('{"title":"Fix it","tokens":1234}');
    expect(renderTemplate('{{cwd | basename}}', { cwd: '/home/dev/projects/demo/' })).toBe('demo');
  });
  it('runs no code and reads no prototype', () => {
    expect(renderTemplate('{{constructor}}{{session.__proto__}}{{session.title.length}}', ctx)).toBe('');
    expect(renderTemplate('{{ process.exit(1) }}', ctx)).toBe('');
    expect(renderTemplate('\\{{session.title}}', ctx)).toBe('{{session.title}}');
  });
  it('tidies the blank lines a missing field leaves', () => {
    expect(renderTemplate('{{none}}\n{{msg}}\n\n\n\nend\n{{none}}', ctx)).toBe('line one\nline two\n\nend');
  });
  it('reports bad paths and unknown filters before use', () => {
    expect(checkTemplate('{{ a.b | upper }}')).toEqual([]);
    expect(checkTemplate('{{ a + b }} {{x | shout}}')).toEqual([
      '"a + b" is not a field path (use e.g. session.title)',
      expect.stringContaining('unknown filter "shout"'),
    ]);
  });
  it('knows only its own filters, never a name from the object prototype', () => {
    expect(checkTemplate('{{ x | constructor }}')).toEqual([
      expect.stringContaining('unknown filter "constructor"'),
    ]);
    expect(renderTemplate('[{{ x | toString }}]', { x: 1 })).toBe('[]');
  });
});

describe('project globs', () => {
  it('matches folders with ** and *, braces, ~ and bare names', () => {
    expect(matchesProject('~/work/**', '/home/dev/work/api/src', '/home/dev')).toBe(true);
    expect(matchesProject('~/work/**', '/home/dev/play/api', '/home/dev')).toBe(false);
    expect(matchesProject('/srv/*/app', '/srv/a/app')).toBe(true);
    expect(matchesProject('/srv/*/app', '/srv/a/b/app')).toBe(false);
    expect(matchesProject('{demo,api}', '/home/dev/projects/demo')).toBe(true);
    expect(matchesProject('de?o', '/x/demo/')).toBe(true);
    expect(globToRegExp('a.b(c)').test('a.b(c)')).toBe(true);
    expect(globToRegExp('a.b').test('axb')).toBe(false);
  });
});

describe('quiet hours', () => {
  const qh = { windows: [{ start: '22:00', end: '07:00' }], allowUrgent: true, digest: true };
  it('spans midnight in local time', () => {
    expect(quietStateAt(new Date(2026, 0, 5, 21, 59).getTime(), qh)).toEqual({ quiet: false });
    expect(quietStateAt(new Date(2026, 0, 5, 23, 0).getTime(), qh)).toEqual({
      quiet: true,
      endsAt: new Date(2026, 0, 6, 7, 0).getTime(),
    });
    expect(quietStateAt(new Date(2026, 0, 6, 3, 0).getTime(), qh)).toEqual({
      quiet: true,
      endsAt: new Date(2026, 0, 6, 7, 0).getTime(),
    });
    expect(quietStateAt(new Date(2026, 0, 6, 7, 0).getTime(), qh)).toEqual({ quiet: false });
  });
  it('honours days (the day a window starts) and chains back-to-back windows', () => {
    const weekend = {
      ...qh,
      windows: [
        { start: '00:00', end: '12:00', days: ['sat' as const] },
        { start: '12:00', end: '18:00' },
      ],
    };
    // 2026-01-10 is a Saturday.
    expect(quietStateAt(new Date(2026, 0, 10, 9, 0).getTime(), weekend)).toEqual({
      quiet: true,
      endsAt: new Date(2026, 0, 10, 18, 0).getTime(),
    });
    expect(quietStateAt(new Date(2026, 0, 9, 9, 0).getTime(), weekend)).toEqual({ quiet: false });
  });
});

describe('interpolateEnv', () => {
  it('resolves ${VAR} and ${VAR:-default} deeply and lists missing variables', () => {
    const { value, missing } = interpolateEnv(
      {
        url: '${HOOK}/x',
        headers: { a: 'Bearer ${TOKEN}', b: '${NOPE:-fallback}' },
        list: ['${MISSING}', '$${LITERAL}'],
        n: 3,
      },
      { HOOK: 'http://127.0.0.1:1', TOKEN: 't0k', EMPTY: '' },
    );
    expect(value).toEqual({
      url: 'http://127.0.0.1:1/x',
      headers: { a: 'Bearer t0k', b: 'fallback' },
      list: ['', '${LITERAL}'],
      n: 3,
    });
    expect(missing).toEqual(['MISSING']);
    expect(interpolateEnv('${EMPTY}', { EMPTY: '' }).missing).toEqual(['EMPTY']);
  });
});

describe('one duration format', () => {
  it('formats every duration the same way, in templates, rules and tables', async () => {
    const { formatDuration } = await import('../../../src/util/text/format-duration.js');
    expect([950, 1207, 9949, 9950, 42_000, 59_600, 119_700, 3_725_000].map(formatDuration)).toEqual([
      '950ms',
      '1.2s',
      '9.9s',
      '10s',
      '42s',
      '1m00s',
      '2m00s',
      '1h02m',
    ]);
    expect(renderTemplate('{{n | duration}}', { n: 1207 })).toBe(formatDuration(1207));
  });
});
