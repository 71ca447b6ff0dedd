import { describe, expect, it } from 'vitest';
import {
  boundedPayload,
  HANDOFF_MAX_BYTES,
  HANDOFF_STRING_MAX,
} from '../../../src/hook-path/handoff-bound.js';

type Shape = { hook_event_name: string; tool_response: { originalFile: string } };

const size = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

describe('boundedPayload', () => {
  it('hands a small payload off as it is', () => {
    const payload = { hook_event_name: 'PreToolUse', tool_input: { command: 'ls' } };
    expect(boundedPayload(payload)).toBe(payload);
  });

  it('cuts long strings with a marker and keeps the rest, __proto__ keys included', () => {
    const content = 'a'.repeat(300_000);
    const payload = JSON.parse(
      JSON.stringify({
        hook_event_name: 'PostToolUse',
        tool_response: { originalFile: content, n: 1 },
      }).replace('"n"', '"__proto__"'),
    ) as Shape;
    const bounded = boundedPayload(payload) as Shape;
    expect(bounded.hook_event_name).toBe('PostToolUse');
    expect(bounded.tool_response.originalFile).toBe(
      `${'a'.repeat(HANDOFF_STRING_MAX)}… (${content.length} characters, cut)`,
    );
    expect(Object.hasOwn(bounded.tool_response, '__proto__')).toBe(true);
    expect(payload.tool_response.originalFile).toBe(content);
  });

  it('never cuts inside a surrogate pair', () => {
    const content = `${'b'.repeat(HANDOFF_STRING_MAX - 1)}😀${'c'.repeat(300_000)}`;
    const cut = (boundedPayload({ content }) as { content: string }).content;
    expect(cut.startsWith(`${'b'.repeat(HANDOFF_STRING_MAX - 1)}…`)).toBe(true);
  });

  it('stays under its limit when many strings add up, leaving out the largest values first', () => {
    const many = Array.from({ length: 200 }, () => 'x'.repeat(50_000));
    const wide = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, 'y'.repeat(2000)]));
    const payload = { hook_event_name: 'PostToolBatch', results: many, wide, session_id: 's' };
    const bounded = boundedPayload(payload) as Record<string, unknown>;
    expect(size(bounded)).toBeLessThanOrEqual(HANDOFF_MAX_BYTES);
    expect(bounded.hook_event_name).toBe('PostToolBatch');
    expect(bounded.session_id).toBe('s');
    expect(String(bounded.wide)).toMatch(/^\[left out of hookd's copy: \d+ bytes\]$/);
  });
});
