import { describe, expect, it } from 'vitest';
import { colorFor, paint } from '../../../src/terminal/output.js';

describe('colour', () => {
  it('is on only on a terminal', () => {
    expect(colorFor(true, {})).toBe(true);
    expect(colorFor(false, {})).toBe(false);
    expect(colorFor(undefined, {})).toBe(false);
  });
  it('honours NO_COLOR set to anything and TERM=dumb', () => {
    expect(colorFor(true, { NO_COLOR: '1' })).toBe(false);
    expect(colorFor(true, { NO_COLOR: 'yes' })).toBe(false);
    expect(colorFor(true, { TERM: 'dumb' })).toBe(false);
    expect(colorFor(true, { TERM: 'xterm-256color' })).toBe(true);
  });
  it('paints only when colour is on', () => {
    expect(paint({ color: false }, 'red', 'x')).toBe('x');
    expect(paint({ color: true }, 'red', 'x')).toBe('\u001b[31mx\u001b[0m');
  });
});
