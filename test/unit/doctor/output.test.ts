import { afterEach, describe, expect, it, vi } from 'vitest';
import { countStatuses, formatDoctor } from '../../../src/doctor/format-doctor.js';
import { createProgressLine } from '../../../src/doctor/progress-line.js';
import type { CheckResult } from '../../../src/doctor/types.js';

const results: CheckResult[] = [
  { id: 'node', title: 'Node.js version', status: 'ok', detail: 'v20.20.2' },
  { id: 'daemon', title: 'Daemon', status: 'warn', detail: 'not running', fix: 'hookd daemon start' },
  { id: 'cfg', title: 'Config', status: 'fail', detail: 'invalid:\nline one\nline two', fix: 'edit it' },
  { id: 'api', title: 'API key', status: 'skip', detail: 'no key', fix: 'export HOOKD_API_KEY=...' },
];

describe('formatDoctor', () => {
  it('marks each check, indents details and fixes, and sums up', () => {
    expect(formatDoctor(results, { color: false })).toBe(
      [
        '✓ Node.js version: v20.20.2',
        '! Daemon: not running',
        '    fix: hookd daemon start',
        '✗ Config: invalid:',
        '    line one',
        '    line two',
        '    fix: edit it',
        '- API key: no key',
        '    hint: export HOOKD_API_KEY=...',
        '',
        '1 ok, 1 warning, 1 failed, 1 skipped',
        '',
      ].join('\n'),
    );
  });

  it('colours only when asked', () => {
    expect(formatDoctor(results, { color: false })).not.toContain('\u001b[');
    const coloured = formatDoctor(results, { color: true });
    expect(coloured).toContain('\u001b[32m✓\u001b[0m');
    expect(coloured).toContain('\u001b[31m✗\u001b[0m');
    expect(coloured).toContain('\u001b[33m!\u001b[0m');
  });

  it('counts statuses', () => {
    expect(countStatuses(results)).toEqual({ ok: 1, warn: 1, fail: 1, skip: 1 });
  });
});

describe('createProgressLine', () => {
  afterEach(() => vi.useRealTimers());

  function stream(isTTY: boolean) {
    const writes: string[] = [];
    return { writes, isTTY, write: (text: string) => writes.push(text) };
  }

  it('stays silent when the work ends within the delay', () => {
    vi.useFakeTimers();
    const s = stream(true);
    const line = createProgressLine(s, 1000);
    line.update('1/3');
    vi.advanceTimersByTime(999);
    line.stop();
    vi.advanceTimersByTime(5000);
    expect(s.writes).toEqual([]);
  });

  it('shows the latest text after the delay, redraws it, and erases it at the end', () => {
    vi.useFakeTimers();
    const s = stream(true);
    const line = createProgressLine(s, 1000);
    line.update('1/3');
    vi.advanceTimersByTime(1000);
    line.update('2/3');
    line.stop();
    expect(s.writes).toEqual(['\r\u001b[K1/3', '\r\u001b[K2/3', '\r\u001b[K']);
  });

  it('never writes when the stream is not a terminal', () => {
    vi.useFakeTimers();
    const s = stream(false);
    const line = createProgressLine(s, 1000);
    line.update('1/3');
    vi.advanceTimersByTime(5000);
    line.update('2/3');
    line.stop();
    expect(s.writes).toEqual([]);
  });
});
