import { describe, expect, it } from 'vitest';
import { clipText } from '../../../src/util/text/clip-text.js';
import { askMessage } from '../../../src/remote/slack-approval-message.js';
import { desktopAskText } from '../../../src/remote/desktop-channel.js';
import { SUMMARY_COMMAND_MAX, summarizeCall } from '../../../src/remote/summary.js';
import type { PermissionAsk } from '../../../src/remote/types.js';

/** A surrogate without its other half: text that is not valid Unicode (it becomes U+FFFD on the wire). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe('clipText', () => {
  it('leaves text within the limit as it is', () => {
    expect(clipText('', 0)).toBe('');
    expect(clipText('hello', 5)).toBe('hello');
    expect(clipText('hello', 5, (n) => ` (${n} more)`)).toBe('hello');
  });

  it('ends cut text with an ellipsis, within the limit', () => {
    expect(clipText('hello world', 6)).toBe('hello…');
    expect(clipText('hello world', 1)).toBe('…');
    expect(clipText('hello world', 0)).toBe('');
    for (let max = 1; max <= 12; max++)
      expect(clipText('hello world!!', max).length).toBeLessThanOrEqual(max);
  });

  it('never splits a character of two UTF-16 units (an emoji)', () => {
    const text = '😀'.repeat(10);
    for (let max = 1; max < text.length; max++) {
      const clipped = clipText(text, max);
      expect(clipped.length).toBeLessThanOrEqual(max);
      expect(clipped).not.toMatch(LONE_SURROGATE);
      expect(clipped.endsWith('…')).toBe(true);
    }
    expect(clipText(text, 4)).toBe('😀…');
    expect(clipText('aé😀b', 4)).toBe('aé…');
  });

  it('says how much was cut, the count within the limit too, and falls back to the ellipsis alone', () => {
    const more = (n: number) => ` (${n} more characters)`;
    expect(clipText('x'.repeat(100), 40, more)).toBe(`${'x'.repeat(18)}… (82 more characters)`);
    // The count's digits move the cut: 9 → 10 characters cut.
    const shifted = clipText('x'.repeat(30), 29, more);
    expect(shifted.length).toBeLessThanOrEqual(29);
    expect(shifted).toBe(`${'x'.repeat(7)}… (23 more characters)`);
    for (let max = 1; max <= 60; max++) {
      const clipped = clipText('😀'.repeat(40), max, more);
      expect(clipped.length).toBeLessThanOrEqual(max);
      expect(clipped).not.toMatch(LONE_SURROGATE);
    }
    expect(clipText('x'.repeat(100), 10, more)).toBe(`${'x'.repeat(9)}…`);
  });
});

const ask = (command: string): PermissionAsk => ({
  id: 'a1',
  agent: 'claude',
  session: 's1',
  project: '/p',
  summary: { title: '😀'.repeat(200), tool: 'Bash', command },
  expiresAt: 0,
  tokens: { allow: 'allow-token-1234', deny: 'deny-token-1234' },
});

describe('the texts hookd clips', () => {
  it('a Slack ask and a desktop ask of an emoji title are valid Unicode', () => {
    // JSON.stringify writes a lone surrogate as an escape, a whole pair as the character.
    expect(JSON.stringify(askMessage(ask('ls')))).not.toMatch(/\\ud[89a-f][0-9a-f]{2}/i);
    const { title } = desktopAskText(ask('ls'));
    expect(title.length).toBeLessThanOrEqual(200);
    expect(title).not.toMatch(LONE_SURROGATE);
  });

  it("the approver's summary of a long command stays within its limit and says what was cut", () => {
    const summary = summarizeCall('claude', 'Bash', { command: 'x'.repeat(5000) }, '/p');
    expect(summary.command!.length).toBeLessThanOrEqual(SUMMARY_COMMAND_MAX);
    expect(summary.command).toMatch(/^x+… \(\d+ more characters\)$/);
  });
});
