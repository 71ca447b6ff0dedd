import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { handOff } from '../../../src/link/client.js';
import { daemonFiles, readPidFile } from '../../../src/link/runtime-files.js';
import { RECORD_VERSION, type SessionRecord } from '../../../src/ledger/types.js';
import { logDir } from '../../../src/paths.js';
import { fixture } from '../../helpers/fixtures.js';
import { runCli, type CliRan } from '../../helpers/cli-run.js';
import { isolatedEnv, makeTempDir } from '../../helpers/temp.js';
import { handoffOf, waitFor } from '../daemon/helpers.js';
import { killQuietly, spawnDaemon, useProcessCleanup, writeConfig } from '../daemon/process-helpers.js';

const { pids, cleanups } = useProcessCleanup();

/**
 * What a hostile repository, event or command writes to take over a terminal: an OSC 52 clipboard write,
 * a window title, a clear screen, a carriage return that rewrites the line, a C1 CSI (one character) and a
 * right-to-left override.
 */
const HOSTILE = 'x\u001b]52;c;ZWNobyBwd25lZA==\u0007\u001b]0;pwned\u0007\u001b[2J\rhidden\u009b31m\u202eend';
/** The same from a command: what `printf` writes (sh's printf takes octal escapes). */
const HOSTILE_PRINTF = String.raw`x\033]52;c;ZWNobyBwd25lZA==\007\033]0;pwned\007\033[2J\rhidden\302\233""31m`;

/** Bytes that make a terminal act, none of which may come out of hookd's human output. */
// eslint-disable-next-line no-control-regex
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

function expectClean(ran: CliRan, what: string, options: { crlf?: boolean } = {}): void {
  // CSV ends its lines with CRLF (RFC 4180): that CR is hookd's own.
  const text = ran.stdout.replace(options.crlf ? /\r\n/g : /^$/, '\n') + ran.stderr;
  const found = RAW.exec(text);
  expect(found, `${what}: a raw ${JSON.stringify(found?.[0])} in ${JSON.stringify(text)}`).toBe(null);
}

function setup() {
  const { dir, cleanup } = makeTempDir();
  cleanups.push(cleanup);
  const env = isolatedEnv(dir);
  return { dir, env };
}

function ledgerRecord(overrides: Partial<SessionRecord>): SessionRecord {
  return {
    v: RECORD_VERSION,
    sessionId: `s-${HOSTILE}`,
    parentId: HOSTILE,
    isSubagent: false,
    agent: HOSTILE,
    project: `/work/${HOSTILE}`,
    projectName: HOSTILE,
    cwd: `/work/${HOSTILE}`,
    branch: HOSTILE,
    title: HOSTILE,
    reason: HOSTILE,
    startedAtMs: 1_790_000_000_000,
    endedAtMs: 1_790_000_060_000,
    durationMs: 60_000,
    activeTimeMs: null,
    messageCount: 3,
    model: HOSTILE,
    tokens: null,
    inclusiveTokens: null,
    credits: null,
    toolCalls: { [HOSTILE]: 2 },
    hookFailures: 0,
    hookTimeouts: 0,
    subagentCount: 0,
    eventCount: 4,
    recordedAtMs: 1_790_000_060_000,
    ...overrides,
  };
}

describe('nothing from events or commands reaches the terminal raw', () => {
  it('hookd logs: messages, fields and a failed command’s stderr tail (and --json)', async () => {
    const { env } = setup();
    writeConfig(env, {
      hooks: {
        PreToolUse: [{ hooks: [{ type: 'command', command: `printf '${HOSTILE_PRINTF}' >&2; exit 1` }] }],
      },
    });
    const emitted = await runCli(['emit', 'PreToolUse', '--no-daemon', '--session', HOSTILE], { env });
    expectClean(emitted, 'hookd emit');
    expect(emitted.stdout).toContain(String.raw`stderr| x\x1b]52;c;ZWNobyBwd25lZA==\x07`);
    // A record planted in the daemon's log, every shown field hostile.
    mkdirSync(logDir(env), { recursive: true });
    writeFileSync(
      join(logDir(env), 'daemon.log'),
      `${JSON.stringify({ level: 50, time: 1, msg: HOSTILE, event: HOSTILE, sessionId: HOSTILE, path: HOSTILE, stderrTail: `${HOSTILE}\n${HOSTILE}` })}\n`,
    );
    const logs = await runCli(['logs'], { env });
    expect(logs.code).toBe(0);
    expectClean(logs, 'hookd logs');
    expect(logs.stdout).toContain(
      String.raw`x\x1b]52;c;ZWNobyBwd25lZA==\x07\x1b]0;pwned\x07\x1b[2J\rhidden\x9b31m\u202eend`,
    );
    const json = await runCli(['logs', '--json'], { env });
    expectClean(json, 'hookd logs --json');
    const records = json.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { msg: string; stderrTail?: string });
    expect(records.find((r) => r.msg === HOSTILE)?.stderrTail).toBe(`${HOSTILE}\n${HOSTILE}`);
  });

  it('hookd status, sessions --live and outbox list: session ids, cwd, project dir and titles (and --json)', async () => {
    const { dir, env } = setup();
    writeConfig(env, {
      notify: {
        channels: { log: { type: 'command', command: ['false'] } },
        rules: [{ on: ['Notification'], channels: ['log'], title: '{{message}}' }],
        waitingDelayMs: 0,
      },
    });
    cleanups.push(() => killQuietly(readPidFile(daemonFiles(env).lock)));
    const daemon = await spawnDaemon(env);
    pids.push(daemon.pid!);
    const cwd = join(dir, HOSTILE);
    const payload = {
      ...fixture('jsonrpc/04-Notification.json'),
      session_id: HOSTILE,
      cwd,
      message: HOSTILE,
    };
    expect((await handOff(handoffOf(payload), { env, timeoutMs: 5000 })).outcome).toBe('acked');
    const live = async () => {
      const ran = await runCli(['sessions', '--live', '--json'], { env });
      return ran.code === 0 && (JSON.parse(ran.stdout) as { id: string }[]).some((s) => s.id === HOSTILE);
    };
    await waitFor(live, 15_000, 'the hostile session live');
    for (const args of [
      ['status'],
      ['status', '--json'],
      ['sessions', '--live', '--once'],
      ['sessions', '--live', '--json'],
      ['outbox', 'list', '--state', 'all'],
      ['outbox', 'list', '--state', 'all', '--json'],
    ]) {
      const ran = await runCli(args, { env });
      expect(ran.code, `hookd ${args.join(' ')}: ${ran.stderr}`).toBe(0);
      expectClean(ran, `hookd ${args.join(' ')}`);
    }
    const status = await runCli(['sessions', '--live', '--once'], { env });
    expect(status.stdout).toContain(String.raw`x\x1b]52;c;`);
  });

  it('hookd sessions, sessions show, stats and --csv: a ledger record', async () => {
    const { env } = setup();
    const ledger = join(env.XDG_DATA_HOME!, 'hookd', 'ledger');
    mkdirSync(ledger, { recursive: true });
    writeFileSync(join(ledger, 'sessions.jsonl'), `${JSON.stringify(ledgerRecord({}))}\n`);
    for (const args of [
      ['sessions'],
      ['sessions', 'show', 's-'],
      ['sessions', 'stats', '--by', 'project'],
      ['sessions', 'stats', '--by', 'model'],
      ['sessions', '--csv'],
      ['sessions', '--json'],
    ]) {
      const ran = await runCli(args, { env });
      expect(ran.code, `hookd ${args.join(' ')}: ${ran.stderr}`).toBe(0);
      expectClean(ran, `hookd ${args.join(' ')}`, { crlf: args.includes('--csv') });
    }
  });

  it('hookd explain, config, validate, doctor, trust and emit --print: a payload and a hostile repository', async () => {
    const { dir, env } = setup();
    const project = join(dir, HOSTILE);
    mkdirSync(join(project, '.hookd'), { recursive: true });
    writeFileSync(
      join(project, '.hookd', 'config.json'),
      JSON.stringify({
        hooks: {
          PreToolUse: [
            { matcher: HOSTILE, hooks: [{ type: 'command', command: `echo ${HOSTILE}`, name: HOSTILE }] },
          ],
        },
      }),
    );
    writeConfig(env, {
      hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: `echo ${HOSTILE}` }] }] },
      notify: { rules: [{ on: ['PreToolUse'], channels: ['desktop'], title: '{{tool}} {{cwd}}' }] },
    });
    // A valid one too, for `hookd trust`, which lists the commands it adds.
    const valid = join(dir, `valid${HOSTILE}`);
    mkdirSync(join(valid, '.hookd'), { recursive: true });
    writeFileSync(
      join(valid, '.hookd', 'config.json'),
      JSON.stringify({
        hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: `echo ${HOSTILE}` }] }] },
      }),
    );
    const event = join(dir, 'event.json');
    writeFileSync(
      event,
      JSON.stringify({
        ...fixture('jsonrpc/03-PreToolUse-Execute.json'),
        session_id: HOSTILE,
        cwd: project,
        tool_name: HOSTILE,
      }),
    );
    for (const args of [
      ['explain', event],
      ['explain', event, '--json'],
      ['config', '--project', project],
      ['validate', '--project', project],
      ['doctor', '--project', project],
      ['trust', project],
      ['trust', valid],
      ['trust', '--list'],
      ['config', '--project', valid],
      ['trust', '--revoke', valid],
      ['emit', 'PreToolUse', '--session', HOSTILE, '--print'],
    ]) {
      const ran = await runCli(args, { env, cwd: project });
      expectClean(ran, `hookd ${args.join(' ')}`);
      if (args[0] === 'trust' && args[1] === valid) expect(ran.stdout).toContain('Commands it adds');
    }
  });
});
