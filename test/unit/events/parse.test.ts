import { describe, expect, it } from 'vitest';
import { scanJson } from '../../../src/events/json-scan.js';
import { eventScanOptions, parseEvent, parseScanned } from '../../../src/events/parse.js';
import { droidFixtures } from '../../helpers/fixtures.js';

describe('parseEvent', () => {
  it.each(droidFixtures().map((f) => [f.file, f] as const))('parses the real payload %s', (_name, f) => {
    const result = parseEvent(f.raw, { FACTORY_PROJECT_DIR: '/home/dev/projects/demo' });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.event.name).toBe(f.payload.hook_event_name);
    expect(result.event.sessionId).toBe(f.payload.session_id);
    expect(result.event.agent).toBe('droid');
    expect(result.event.payload).toEqual(f.payload);
    expect(result.event.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it.each([
    ['empty', '', 'empty'],
    ['whitespace', '  \n', 'empty'],
    ['not JSON', '{"hook_event_name": ', 'not-json'],
    ['an array', '[1,2]', 'not-object'],
    ['a string', '"Stop"', 'not-object'],
    ['null', 'null', 'not-object'],
    ['binary', Buffer.from([0x7b, 0x00, 0xff, 0xfe]), 'binary'],
    ['invalid UTF-8', Buffer.from([0x7b, 0x22, 0xc3, 0x28, 0x22, 0x7d]), 'binary'],
  ])('rejects %s input with a clear reason', (_name, input, reason) => {
    const result = parseEvent(input, {});
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.reason).toBe(reason);
    expect(result.detail.length).toBeGreaterThan(10);
  });

  it('accepts unknown events and fields, and Claude Code payloads', () => {
    const result = parseEvent(
      JSON.stringify({
        hook_event_name: 'PostToolUse',
        session_id: 's',
        tool_name: 'Bash',
        tool_use_id: 'toolu_1',
        tool_response: { stdout: 'x' },
      }),
      { CLAUDE_PROJECT_DIR: '/p' },
    );
    expect(result.ok && result.event.agent).toBe('claude');
    expect(result.ok && result.event.projectDir).toBe('/p');
    const unknown = parseEvent('{"whatever": true}', {});
    expect(unknown.ok && unknown.event.name).toBe('Unknown');
  });

  it('reads JSON behind a UTF-8 byte order mark, on both parse paths', () => {
    const bytes = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from('{"hook_event_name":"PreToolUse","tool_name":"Bash"}'),
    ]);
    const whole = parseEvent(bytes, {});
    expect(whole.ok && whole.event.name).toBe('PreToolUse');
    const scanned = parseScanned(scanJson(bytes, eventScanOptions(1 << 20)), bytes.length, {});
    expect(scanned.ok && scanned.event.payload).toEqual({ hook_event_name: 'PreToolUse', tool_name: 'Bash' });
    const onlyBom = parseEvent(Buffer.from([0xef, 0xbb, 0xbf]), {});
    expect(!onlyBom.ok && onlyBom.reason).toBe('empty');
  });

  it.each([
    ['empty', '  ', 'empty'],
    ['cut', '{"hook_event_name": "Pre', 'not-json'],
    ['not JSON', '{oops}', 'not-json'],
    ['an array', '[1]', 'not-object'],
  ])('rejects %s input scanned past the in-memory limit as parseEvent does', (_name, input, reason) => {
    const result = parseScanned(scanJson(Buffer.from(input), eventScanOptions(1 << 20)), input.length, {});
    expect(!result.ok && result.reason).toBe(reason);
    expect(!parseEvent(input, {}).ok && (parseEvent(input, {}) as { reason: string }).reason).toBe(reason);
  });
});
