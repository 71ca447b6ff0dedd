import { describe, expect, it } from 'vitest';
import { chosenDecision, desktopAskArgs, desktopAskText } from '../../../src/remote/desktop-channel.js';
import { parseCapabilities } from '../../../src/remote/desktop-probe.js';
import type { PermissionAsk } from '../../../src/remote/types.js';

const ask = (summary: Partial<PermissionAsk['summary']> = {}): PermissionAsk => ({
  id: 'a1',
  agent: 'claude',
  session: 's',
  project: '/home/u/app',
  expiresAt: 0,
  tokens: { allow: 'secret-allow', deny: 'secret-deny' },
  summary: { title: 'Claude Code wants to run Bash', tool: 'Bash', ...summary },
});

describe('the desktop ask as notify-send gets it', () => {
  it('argv only, options first, then "--" before the title and body; the tokens never appear', () => {
    const args = desktopAskArgs(
      '/usr/bin/notify-send',
      ask({ title: '-u low', command: 'ls' }),
      'hookd',
      1500.2,
    );
    expect(args.slice(0, 11)).toEqual([
      '/usr/bin/notify-send',
      '--app-name',
      'hookd',
      '--urgency',
      'critical',
      '--expire-time',
      '1501',
      '--action=allow=Allow',
      '--action=deny=Deny',
      '--wait',
      '--',
    ]);
    expect(args[11]).toBe('-u low');
    expect(args.join(' ')).not.toContain('secret');
  });

  it('shows exactly what would run, markup escaped, control and bidi characters made visible, bounded', () => {
    const { title, body } = desktopAskText(
      ask({
        title: 'run \u202eexe.txt\u001b]52;c;AAAA\u0007',
        command: 'echo <b>&</b>',
        filePath: '/etc/hosts',
        diff: '-a\n+b',
      }),
    );
    expect(title).toBe('run \\u202eexe.txt\\x1b]52;c;AAAA\\x07');
    expect(body).toBe(
      'Tool: Bash\nCommand: echo &lt;b&gt;&amp;&lt;/b&gt;\nFile: /etc/hosts\n-a\n+b\nProject: /home/u/app',
    );
    const long = desktopAskText(ask({ title: 'x'.repeat(5000), command: 'y'.repeat(50_000) }));
    expect(long.title.length).toBeLessThanOrEqual(200);
    expect(long.body.length).toBeLessThanOrEqual(2000);
  });

  it('reads the pressed key, and nothing else, from what notify-send printed', () => {
    expect(chosenDecision('deny\n')).toBe('deny');
    expect(chosenDecision('42\nallow\n')).toBe('allow');
    expect(chosenDecision('')).toBeUndefined();
    expect(chosenDecision('allowed\nDENY\n0\n')).toBeUndefined();
  });

  it('reads the capabilities as gdbus and dbus-send print them', () => {
    expect(parseCapabilities("(['actions', 'body', 'x-dunst-stack-tag'],)\n")).toEqual([
      'actions',
      'body',
      'x-dunst-stack-tag',
    ]);
    expect(
      parseCapabilities(
        'method return time=1 sender=:1.2 -> destination=:1.3 serial=4 reply_serial=2\n   array [\n      string "body"\n      string "actions"\n   ]\n',
      ),
    ).toEqual(['body', 'actions']);
    expect(parseCapabilities('(@as [],)')).toEqual([]);
  });
});
