import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readdirSync, readFileSync, renameSync, symlinkSync } from 'node:fs';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FAST_CLIENT_VERSIONS, FAST_PROTOCOL } from '../../../src/daemon/fast-server.js';
import { readPid } from '../../helpers/procs.js';
import { makeTempDir } from '../../helpers/temp.js';
import { waitFor } from './helpers.js';
import { BIN, stopDaemon, useProcessCleanup } from './process-helpers.js';
import {
  DAEMON_PID_SH,
  fakeListener,
  handOffEnv,
  listenerFile,
  NATIVE_CLIENT,
  onToolEvents,
  signalQuietly,
  startFastDaemon,
  startHook,
  toolEvent,
  writeFastConfig,
} from './fast-client-helpers.js';

// What only the native client (native/hookd-client.c, dist/hookd-client) does, or does differently from
// the bash one, through a real daemon process and real sockets. The suites shared with the bash client
// (fast-path*.test.ts) run against it too.

const { pids, cleanups } = useProcessCleanup();
let tmp: ReturnType<typeof makeTempDir>;
let env: Record<string, string>;
const daemons: { pid?: number }[] = [];

beforeEach(() => {
  tmp = makeTempDir('hkfn-');
  env = handOffEnv(tmp.dir);
});
afterEach(async () => {
  for (const d of daemons.splice(0)) {
    signalQuietly(d.pid, 'SIGCONT');
    await stopDaemon(d as Parameters<typeof stopDaemon>[0]);
  }
  tmp.cleanup();
});

const native = `'${NATIVE_CLIENT}' --agent droid`;
const node = `'${process.execPath}' '${BIN}' hook --agent droid`;

async function daemon() {
  const d = await startFastDaemon(env);
  daemons.push(d);
  return d;
}

/** Runs a hook command as the agent does (sh -c), with `stdin`; resolves with its exit and output. */
async function run(command: string, stdin: Buffer, more: Record<string, string> = {}, umask = '022') {
  const h = startHook(command, { env: { ...env, ...more }, cwd: tmp.dir, stdin, umask });
  pids.push(h.child.pid!);
  return h.done;
}

const copies = () => readdirSync(env.HOOKD_RUNTIME_DIR!).filter((n) => /^[co]\./.test(n));

describe('the native fast client', () => {
  // Never skipped: a build without a C compiler fails here (CI installs gcc), unless the build was told
  // not to build it.
  it.runIf(process.env.HOOKD_NO_NATIVE_CLIENT !== '1')(
    'was built by npm run build, and its probe says the version and protocol the daemon serves',
    () => {
      expect(existsSync(NATIVE_CLIENT), `${NATIVE_CLIENT} (npm run build with a C compiler)`).toBe(true);
      const probe = spawnSync(NATIVE_CLIENT, ['--hookd-client-version'], { encoding: 'utf8' });
      expect(probe.status).toBe(0);
      const m = /^hookd-client (\d+) protocol (\d+)\n$/.exec(probe.stdout);
      expect(m, probe.stdout).not.toBeNull();
      expect(Number(m![2])).toBe(FAST_PROTOCOL);
      expect(Number(m![1])).toBeGreaterThanOrEqual(FAST_CLIENT_VERSIONS.min);
      expect(Number(m![1])).toBeLessThanOrEqual(FAST_CLIENT_VERSIONS.max);
    },
  );

  it('stdin byte for byte around the inline limit and far over 64 KiB, even with umask 777; no copy left', async () => {
    writeFastConfig(env, onToolEvents(`cat > "$OUT"; echo ${DAEMON_PID_SH} > "$OUT.ppid"`));
    const d = await daemon();
    // A valid event of exactly `size` bytes, padded with 1-, 2- and 4-byte characters.
    const sized = (size: number) => {
      const room = size - toolEvent('s1-size', { pad: '' }).length;
      const unit = 'é😀x'; // 7 bytes
      const pad = unit.repeat(Math.floor(room / 7)) + 'x'.repeat(room % 7);
      const bytes = toolEvent('s1-size', { pad });
      expect(bytes.length).toBe(size);
      return bytes;
    };
    const cases = [60 * 1024 - 1, 60 * 1024, 60 * 1024 + 1, 64 * 1024, 64 * 1024 + 1, 300_000, 3_000_000];
    for (const [i, size] of cases.entries()) {
      const bytes = sized(size);
      const out = join(tmp.dir, `size${i}`);
      // umask 777: the copy is 0600 whatever the agent's umask (the daemon must read it).
      const ran = await run(native, bytes, { OUT: out }, i % 2 ? '777' : '022');
      expect(ran.code, `${size}: ${ran.stderr.toString()}`).toBe(0);
      expect(readFileSync(out).equals(bytes), `${size} bytes`).toBe(true);
      expect(readPid(`${out}.ppid`), `${size}: run by the daemon`).toBe(d.pid);
    }
    expect(copies()).toEqual([]);
  });

  it('NUL bytes, early and past the inline limit, reach the daemon byte for byte (kept as a dead letter)', async () => {
    writeFastConfig(env, onToolEvents('true'));
    await daemon();
    const dead = join(env.HOOKD_STATE_DIR!, 'dead-letter');
    const payloads = [
      Buffer.from([0]),
      Buffer.from('{"a":1}\0{"b":2}'),
      Buffer.concat([Buffer.alloc(70_000, 'a'), Buffer.from([0, 0x62, 0])]),
      Buffer.concat([Buffer.alloc(100, 'x'), Buffer.alloc(200_000, 0)]),
    ];
    for (const [i, bytes] of payloads.entries()) {
      const ran = await run(native, bytes);
      expect(ran.code, `nul ${i}`).toBe(0);
      await waitFor(
        () => existsSync(dead) && readdirSync(dead).filter((n) => n.endsWith('.bin')).length === i + 1,
        20_000,
        `dead letter ${i}`,
      );
      const kept = readdirSync(dead)
        .filter((n) => n.endsWith('.bin'))
        .map((n) => readFileSync(join(dead, n)));
      expect(
        kept.some((k) => k.equals(bytes)),
        `nul ${i}`,
      ).toBe(true);
    }
    expect(copies()).toEqual([]);
  });

  it('names bash cannot hold (A-B, 1X, A.B, "X Y", é) reach the command in both env modes, as through the Node path', async () => {
    // The command's own sh (dash) drops such names from what it exports, so it reads its environment
    // as exec'd: /proc/$$/environ.
    writeFastConfig(env, onToolEvents(`cat /proc/$$/environ > "$OUT"; echo ${DAEMON_PID_SH} > "$OUT.ppid"`));
    const d = await daemon();
    const names = ['A-B', '1X', 'A.B', 'X Y', 'é', 'A_B', `L${'N'.repeat(200)}`];
    const extra = Object.fromEntries(names.map((n, i) => [n, `v${i}=x`]));
    const carried: Record<string, string[]> = {};
    for (const [name, argv, mode] of [
      ['proc', [NATIVE_CLIENT, '--agent', 'droid'], {}],
      ['list', [NATIVE_CLIENT, '--agent', 'droid'], { HOOKD_CLIENT_PROC: '0' }],
      ['node', [process.execPath, BIN, 'hook', '--agent', 'droid'], {}],
    ] as const) {
      const out = join(tmp.dir, name);
      // Exec'd directly: no shell between the agent and the client drops the names first.
      const child = spawn(argv[0], argv.slice(1), {
        env: { ...env, ...extra, ...mode, OUT: out },
        cwd: tmp.dir,
        stdio: ['pipe', 'ignore', 'ignore'],
      });
      pids.push(child.pid!);
      child.stdin.end(toolEvent('s1-names'));
      const code = await new Promise((r) => child.once('close', r));
      expect(code, name).toBe(0);
      const seen = new Map(
        readFileSync(out, 'utf8')
          .split('\0')
          .filter(Boolean)
          .map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]),
      );
      carried[name] = names.filter((n, i) => seen.get(n) === `v${i}=x`);
    }
    expect(readPid(join(tmp.dir, 'proc.ppid'))).toBe(d.pid);
    expect(readPid(join(tmp.dir, 'list.ppid'))).toBe(d.pid);
    expect(carried.proc).toEqual(names);
    expect(carried.list).toEqual(names);
    expect(carried.node).toEqual(names);
  });

  it('a large stdout and a large stderr reach the agent byte for byte with the exit code, as through the Node path', async () => {
    const big = (n: number, fd: string) =>
      `head -c ${n} /dev/zero | tr "\\0" "${fd}"; printf "\\001\\377\\n"`;
    writeFastConfig(env, {
      PreToolUse: [{ hooks: [{ type: 'command', command: `{ ${big(71_680, 'e')}; } >&2; exit 2` }] }],
      UserPromptSubmit: [{ hooks: [{ type: 'command', command: big(102_400, 'o') }] }],
    });
    await daemon();
    const claude = native.replace('droid', 'claude');
    for (const [event, command, nodeCommand] of [
      ['PreToolUse', native, node],
      ['UserPromptSubmit', claude, node.replace('droid', 'claude')],
    ] as const) {
      const payload = Buffer.from(
        JSON.stringify({
          session_id: 's1',
          hook_event_name: event,
          tool_name: 'Execute',
          tool_input: {},
          prompt: 'hi',
        }),
      );
      const viaNative = await run(command, payload);
      const viaNode = await run(nodeCommand, payload);
      expect(viaNative.stdout.equals(viaNode.stdout), event).toBe(true);
      expect(viaNative.stderr.equals(viaNode.stderr), event).toBe(true);
      expect(viaNative.stdout.length + viaNative.stderr.length, event).toBeGreaterThan(70 * 1024);
      expect([viaNative.code, viaNode.code], event).toEqual([event === 'PreToolUse' ? 2 : 0, viaNative.code]);
    }
    expect(copies()).toEqual([]);
  });

  it('an answer with both stdout and stderr is split by the announced lengths; a daemon gone after GO exits with the lost code', async () => {
    // A fake daemon that knows the listener file's secret: it greets, acknowledges, waits for GO, then
    // answers as the script says.
    const answers: ((s: Socket) => void)[] = [
      (s) => {
        const out = Buffer.concat([Buffer.alloc(100_000, 'o'), Buffer.from([0, 1, 255, 10])]);
        const err = Buffer.concat([Buffer.alloc(70_000, 'e'), Buffer.from([0, 10])]);
        s.end(Buffer.concat([Buffer.from(`RESULT 3 ${out.length} ${err.length}\n`), out, err]));
      },
      (s) => s.destroy(),
    ];
    let n = 0;
    await fakeListener(
      env,
      (s) => {
        const answer = answers[n++]!;
        let seen = '';
        let acked = false;
        s.on('data', (c: Buffer) => {
          seen += c.toString('latin1');
          if (!acked && seen.endsWith('\0')) {
            acked = true;
            seen = '';
            s.write(`ACK ${n === 1 ? 1 : 2} ev-${n}\n`);
          } else if (acked && seen.startsWith('GO\n')) answer(s);
        });
        s.write(`HOOKD-FAST ${'a'.repeat(48)}\n`);
      },
      cleanups,
    );
    const both = await run(native, toolEvent('s1-both'));
    expect(both.code).toBe(3);
    expect(
      both.stdout.equals(Buffer.concat([Buffer.alloc(100_000, 'o'), Buffer.from([0, 1, 255, 10])])),
    ).toBe(true);
    expect(both.stderr.equals(Buffer.concat([Buffer.alloc(70_000, 'e'), Buffer.from([0, 10])]))).toBe(true);
    const gone = await run(native, toolEvent('s1-gone'));
    expect(gone.code).toBe(2); // the ACK said 2: a guard of the event fails closed
    expect(gone.stderr.toString()).toBe('hookd: the daemon went away while running the event (ev-2)\n');
    expect(gone.stdout.length).toBe(0);
  });

  it('a greeting that stalls mid-line is bounded by HOOKD_CLIENT_WAIT_S: nothing sent, the Node path runs the event once', async () => {
    writeFastConfig(env, onToolEvents(`printf "%s\\n" "${DAEMON_PID_SH}" >> "$OUT"`), {
      daemon: { handoffTimeoutMs: 100 },
    });
    const received: Buffer[] = [];
    const { sockets } = await fakeListener(
      env,
      (s) => {
        s.on('data', (c: Buffer) => received.push(c));
        // The start of hookd's greeting, then nothing, the connection held open.
        s.write(`HOOKD-FAST ${'a'.repeat(20)}`);
      },
      cleanups,
    );
    const out = join(tmp.dir, 'runs');
    // Ends while the peer still holds the connection: the wait bounded it.
    const ran = await run(native, toolEvent('s1-stall'), { OUT: out, HOOKD_CLIENT_WAIT_S: '1' });
    expect(ran.code, ran.stderr.toString()).toBe(0);
    expect(sockets.size).toBe(1);
    expect(readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(1);
    expect(Buffer.concat(received).length).toBe(0);
  });

  it.each([
    ['the listener file', 'file'],
    ['the runtime dir', 'dir'],
  ])('%s a symlink: the Node path, with stdin untouched; the daemon sees nothing', async (_n, which) => {
    writeFastConfig(env, onToolEvents(`cat > "$OUT"; echo ${DAEMON_PID_SH} > "$OUT.ppid"`));
    const d = await daemon();
    const file = listenerFile(env);
    if (which === 'file') {
      const real = join(env.HOOKD_RUNTIME_DIR!, 'elsewhere');
      copyFileSync(file, real);
      renameSync(file, `${file}.moved`);
      symlinkSync(real, file);
    } else {
      const moved = `${env.HOOKD_RUNTIME_DIR!}.real`;
      renameSync(env.HOOKD_RUNTIME_DIR!, moved);
      symlinkSync(moved, env.HOOKD_RUNTIME_DIR!);
    }
    const out = join(tmp.dir, 'out');
    const bytes = toolEvent('s1-link');
    const ran = await run(native, bytes, { OUT: out });
    expect(ran.code, ran.stderr.toString()).toBe(0);
    expect(readFileSync(out).equals(bytes)).toBe(true);
    expect(readPid(`${out}.ppid`)).not.toBe(d.pid); // the Node path ran it
  });
});
