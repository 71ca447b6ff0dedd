import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkDroidLog } from '../../../src/doctor/checks/agent/check-droid-log.js';
import { scanDroidLogs } from '../../../src/doctor/checks/agent/droid-log.js';
import { check, doctor, makeDoctorHome, wiredSettings, writeJson, type DoctorHome } from './doctor-env.js';

let h: DoctorHome;
beforeEach(() => {
  h = makeDoctorHome();
});
afterEach(() => h.cleanup());

const logs = () => join(h.home, '.factory', 'logs');
const settingsFile = () => join(h.home, '.factory', 'settings.json');

/** A line in the shape Droid 0.225.2 writes. */
function droidLine(
  iso: string,
  level: string,
  message: string,
  context: Record<string, unknown> = {},
): string {
  return `[${iso}] ${level}: ${message} | Context: ${JSON.stringify({ ...context, tags: { version: '0.225.2' } })}\n`;
}

function writeLog(name: string, lines: string[]): string {
  mkdirSync(logs(), { recursive: true });
  const file = join(logs(), name);
  writeFileSync(file, lines.join(''));
  return file;
}

describe('doctor: Droid log', () => {
  it('fails on "Invalid hooks" lines and reports the most recent time and the file', async () => {
    writeJson(settingsFile(), {
      hooks: { Stop: [{ hooks: [{ type: 'command', command: 'x', timeout: '30' }] }] },
    });
    // The settings file is older than the rejections: still broken.
    utimesSync(settingsFile(), new Date('2026-11-23T06:00:00Z'), new Date('2026-11-23T06:00:00Z'));
    const log = writeLog('droid-log-single.log', [
      droidLine('2026-11-23T07:05:54.954Z', 'INFO', '[initCliTracing] starting'),
      droidLine('2026-11-23T07:05:55.019Z', 'WARN', 'Invalid hooks in settings.json, ignoring', {
        path: settingsFile(),
      }),
      droidLine('2026-11-23T07:05:55.136Z', 'WARN', 'Invalid hooks in settings.json, ignoring', {
        path: settingsFile(),
      }),
      droidLine('2026-11-23T07:05:55.141Z', 'INFO', '[Agent] Collecting system info'),
    ]);
    const results = await doctor(h, { now: () => Date.parse('2026-11-23T08:05:55.136Z') });
    const result = check(results, 'droid-log');
    expect(result.status).toBe('fail');
    expect(result.detail).toContain(
      `${settingsFile()}: rejected 2 time(s), last at 2026-11-23T07:05:55.136Z (1h00m ago), in ${log}`,
    );
    expect(result.fix).toContain('start a new Droid session');
    // The same file is named by the settings check, with the broken path.
    expect(check(results, 'droid-settings-user').detail).toContain('hooks.Stop[0].hooks[0].timeout');
  });

  it('looks at every *.log file in the folder, and only those', async () => {
    writeLog('old.log', [
      droidLine('2026-11-01T00:00:00.000Z', 'WARN', 'Invalid hooks in settings.json, ignoring', {
        path: '/a/settings.json',
      }),
    ]);
    writeLog('notes.txt', [
      droidLine('2026-11-02T00:00:00.000Z', 'WARN', 'Invalid hooks in settings.json, ignoring', {
        path: '/b/settings.json',
      }),
    ]);
    writeLog('droid-log-single.log', [droidLine('2026-11-03T00:00:00.000Z', 'INFO', 'nothing to see')]);
    const scan = await scanDroidLogs(logs());
    expect(scan!.files.map((f) => f.slice(logs().length + 1)).sort()).toEqual([
      'droid-log-single.log',
      'old.log',
    ]);
    expect(scan!.lines).toEqual([
      {
        logFile: join(logs(), 'old.log'),
        at: Date.parse('2026-11-01T00:00:00.000Z'),
        settingsFile: '/a/settings.json',
      },
    ]);
  });

  it('says when the log has no timestamps', async () => {
    writeLog('droid-log-single.log', ['WARN: Invalid hooks in settings.json, ignoring\n']);
    const result = await checkDroidLog(logs(), Date.now());
    expect(result.status).toBe('fail');
    expect(result.detail).toContain(
      '(settings file not named in the log): rejected 1 time(s), the log has no timestamps',
    );
  });

  it('counts a file fixed after the last rejection as fixed', async () => {
    writeLog('droid-log-single.log', [
      droidLine('2026-11-23T07:05:55.019Z', 'WARN', 'Invalid hooks in settings.json, ignoring', {
        path: settingsFile(),
      }),
    ]);
    writeJson(settingsFile(), wiredSettings(`${h.hookdBin} hook`));
    utimesSync(settingsFile(), new Date('2026-11-23T09:00:00Z'), new Date('2026-11-23T09:00:00Z'));
    const result = await checkDroidLog(logs(), Date.parse('2026-11-23T10:00:00Z'));
    expect(result.status).toBe('ok');
    expect(result.detail).toContain('fixed since');
  });

  it('is ok without rejections and skipped without a log folder', async () => {
    expect((await checkDroidLog(logs(), Date.now())).status).toBe('skip');
    writeLog('droid-log-single.log', [droidLine('2026-11-23T07:05:55.019Z', 'INFO', 'all good')]);
    const result = await checkDroidLog(logs(), Date.now());
    expect(result.status).toBe('ok');
    expect(result.detail).toContain(
      'no "Invalid hooks in settings.json, ignoring" nor "Invalid hooks file, ignoring" in 1 log file(s)',
    );
  });

  it('reads only the tail of a huge log', async () => {
    const old = droidLine('2026-11-01T00:00:00.000Z', 'WARN', 'Invalid hooks in settings.json, ignoring', {
      path: '/old/settings.json',
    });
    const filler = droidLine('2026-11-02T00:00:00.000Z', 'INFO', 'x'.repeat(200));
    const recent = droidLine('2026-11-03T00:00:00.000Z', 'WARN', 'Invalid hooks in settings.json, ignoring', {
      path: '/new/settings.json',
    });
    writeLog('droid-log-single.log', [old, ...Array.from({ length: 100 }, () => filler), recent]);
    const scan = await scanDroidLogs(logs(), 4096);
    expect(scan!.lines.map((l) => l.settingsFile)).toEqual(['/new/settings.json']);
  });
});
