import { describe, expect, it } from 'vitest';
import stringWidth from '../../../src/terminal/string-width.js';

// The text width yargs lays out hookd's help with (the CLI bundle's `string-width`).
describe('stringWidth', () => {
  it('counts printable ASCII one column a character, and colour codes none', () => {
    expect(stringWidth('hookd emit [event]')).toBe(18);
    expect(stringWidth('\u001b[31mred\u001b[0m')).toBe(3);
    expect(stringWidth('\u001b[31mred\u001b[0m', { countAnsiEscapeCodes: true })).toBe(10);
    expect(stringWidth('')).toBe(0);
    expect(stringWidth(undefined)).toBe(0);
  });

  it('counts wide characters two, combining and zero-width ones none', () => {
    expect(stringWidth('漢字')).toBe(4);
    expect(stringWidth('ｈｏｏｋ')).toBe(8);
    expect(stringWidth('✅ done')).toBe(7);
    expect(stringWidth('🚀')).toBe(2);
    expect(stringWidth('e\u0301')).toBe(1);
    expect(stringWidth('a\u200bb')).toBe(2);
    expect(stringWidth('…→✓')).toBe(3);
  });
});
