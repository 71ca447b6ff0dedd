import { describe, expect, it } from 'vitest';
import { claudeDenyOnly, ruleMatches } from '../../../src/remote/ask-rules.js';
import { summarizeCall } from '../../../src/remote/summary.js';

describe("Claude Code's ask rules", () => {
  const bash = (command: string) => ({ command });

  it('matches a tool alone, a prefix rule, an exact rule, and each part of a compound command', () => {
    expect(ruleMatches('Bash', 'Bash', bash('ls'))).toBe(true);
    expect(ruleMatches('Bash(touch rule-ask:*)', 'Bash', bash('touch rule-ask x.out'))).toBe(true);
    expect(ruleMatches('Bash(touch rule-ask:*)', 'Bash', bash('cd x && touch rule-ask y'))).toBe(true);
    expect(ruleMatches('Bash(npm test)', 'Bash', bash('npm test'))).toBe(true);
    expect(ruleMatches('Bash(npm test)', 'Bash', bash('npm install'))).toBe(false);
    expect(ruleMatches('Bash(touch rule-ask:*)', 'Bash', bash('touch other'))).toBe(false);
    expect(ruleMatches('Edit', 'Bash', bash('ls'))).toBe(false);
  });

  it('errs towards "matches" where it cannot tell (a file rule, a rule it cannot read)', () => {
    expect(ruleMatches('Edit(src/**)', 'Edit', { file_path: '/elsewhere/x' })).toBe(true);
    expect(ruleMatches('((', 'Bash', bash('ls'))).toBe(true);
  });

  it('makes a request deny-only under a matching rule, or without permission suggestions', () => {
    const payload = { tool_name: 'Bash', tool_input: bash('touch a'), permission_suggestions: [] };
    expect(claudeDenyOnly(payload, [])).toEqual({ denyOnly: false });
    expect(claudeDenyOnly(payload, ['Bash(touch:*)']).denyOnly).toBe(true);
    const { permission_suggestions: _gone, ...bare } = payload;
    expect(claudeDenyOnly(bare, []).denyOnly).toBe(true);
  });
});

describe('what the approver is shown', () => {
  it('the command with secrets redacted and control characters escaped, bounded', () => {
    const summary = summarizeCall(
      'claude',
      'Bash',
      {
        command:
          'curl -H "Authorization: Bearer sk-ant-abcdefghijklmnopqrstuvwxyz0123456789" x\u001b]52;c;Zm9v\u0007',
      },
      '/home/ann/src/app',
    );
    expect(summary.title).toBe('Claude Code wants to use Bash in app');
    expect(summary.command).not.toContain('sk-ant-abcdefghijklmnopqrstuvwxyz0123456789');
    expect(summary.command).not.toContain('\u001b');
    expect(summary.command).toContain('\\x1b');
    const long = summarizeCall('claude', 'Bash', { command: 'x'.repeat(5000) }, '/p');
    expect(long.command!.length).toBeLessThan(700);
  });

  it('the file and a short diff of an edit', () => {
    const summary = summarizeCall(
      'claude',
      'Edit',
      { file_path: '/p/a.ts', old_string: 'let a = 1;', new_string: 'let a = 2;' },
      '/p',
    );
    expect(summary).toMatchObject({ filePath: '/p/a.ts', diff: '-let a = 1;\n+let a = 2;' });
  });
});
