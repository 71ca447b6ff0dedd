import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readdirSync, readFileSync, renameSync, symlinkSync } from 'node:fs';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FAST_CLIENT_VERSIONS, FAST_PROTOCOL } from '../../../src/link/wire.js';
import { readPid } from '../../helpers/procs.js';
import { makeTempDir } from '../../helpers/temp.js';
import { waitFor } from './helpers.js';
import { BIN, stopDaemon, useProcessCleanup } from './process-helpers.js';
import {
  deadLetters,
  DAEMON_PID_SH,
  fakeListener,
  handOffEnv,
  fastSocket,
  hookLogRecords,
  NATIVE_CLIENT,
  onToolEvents,
  signalQuietly,
  startFastDaemon,
  startHook,
  toolEvent,
  writeFastConfig,
} from './fast-client-helpers.js';

// What the native client (native/hookd-client.c, dist/hookd-client) does at its edges, through a real
// daemon process and real sockets: sizes, bytes, names, split answers, closed descriptors, and a runtime
// dir or socket that is not the user's own.

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
      await waitFor(() => deadLetters(dead).length === i + 1, 20_000, `dead letter ${i}`);
      expect(
        deadLetters(dead).some((k) => k.equals(bytes)),
        `nul ${i}`,
      ).toBe(true);
    }
    expect(copies()).toEqual([]);
  });

  it('names a shell cannot hold (A-B, 1X, A.B, "X Y", é) reach the command, as through the Node path', async () => {
    // The command's own sh (dash) drops such names from what it exports, so it reads its environment
    // as exec'd: /proc/$$/environ.
    writeFastConfig(env, onToolEvents(`cat /proc/$$/environ > "$OUT"; echo ${DAEMON_PID_SH} > "$OUT.ppid"`));
    const d = await daemon();
    const names = ['A-B', '1X', 'A.B', 'X Y', 'é', 'A_B', `L${'N'.repeat(200)}`];
    const extra = Object.fromEntries(names.map((n, i) => [n, `v${i}=x`]));
    const carried: Record<string, string[]> = {};
    for (const [name, argv, mode] of [
      ['list', [NATIVE_CLIENT, '--agent', 'droid'], {}],
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
    expect(readPid(join(tmp.dir, 'list.ppid'))).toBe(d.pid);
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
    // A scripted daemon: it acknowledges the request, waits for GO, then answers as the script says.
    const answers: ((s: Socket) => void)[] = [
      (s) => {
        const out = Buffer.concat([Buffer.alloc(100_000, 'o'), Buffer.from([0, 1, 255, 10])]);
        const err = Buffer.concat([Buffer.alloc(70_000, 'e'), Buffer.from([0, 10])]);
        s.end(Buffer.concat([Buffer.from(`RESULT 3 ${out.length} ${err.length}\n`), out, err]));
      },
      (s) => s.destroy(),
      // A line that is not a RESULT: the message still names the acknowledged event.
      (s) => s.end('BOGUS-LINE-THAT-OVERWRITES\n'),
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
    const bogus = await run(native, toolEvent('s1-bogus'));
    expect(bogus.code).toBe(2);
    expect(bogus.stderr.toString()).toBe('hookd: the daemon went away while running the event (ev-3)\n');
  });

  it('an acknowledgement that stalls mid-line is bounded by HOOKD_CLIENT_WAIT_S: the Node path runs the event once', async () => {
    writeFastConfig(env, onToolEvents(`printf "%s\\n" "${DAEMON_PID_SH}" >> "$OUT"`), {
      daemon: { handoffTimeoutMs: 100 },
    });
    const { sockets } = await fakeListener(
      env,
      (s) => {
        // The start of an ACK, then nothing, the connection held open.
        s.once('data', () => s.write('ACK 1 ev'));
      },
      cleanups,
    );
    const out = join(tmp.dir, 'runs');
    // Ends while the peer still holds the connection: the wait bounded it.
    const ran = await run(native, toolEvent('s1-stall'), { OUT: out, HOOKD_CLIENT_WAIT_S: '1' });
    expect(ran.code, ran.stderr.toString()).toBe(0);
    expect(sockets.size).toBe(1);
    expect(readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(1);
  });

  it('with its stdin, stdout or stderr closed by the agent, the client never reads or writes its own socket there', async () => {
    writeFastConfig(
      env,
      onToolEvents(`cat > "$OUT"; echo ${DAEMON_PID_SH} > "$OUT.ppid"; echo said >&2; exit 2`),
    );
    const d = await daemon();
    const out = join(tmp.dir, 'closed');
    // stdin closed: an empty event (rejected input: no command runs), not the client's own socket.
    const closed = (prelude: string, stdin: Buffer) => {
      const h = startHook(native, { env: { ...env, OUT: out }, cwd: tmp.dir, stdin, prelude });
      pids.push(h.child.pid!);
      return h.done;
    };
    const none = await closed('exec <&-', Buffer.alloc(0));
    expect(none.code).toBe(0);
    expect(existsSync(out)).toBe(false);
    // stderr closed: the guard's answer still reaches the agent as an exit code, nothing else is written.
    const bytes = toolEvent('s1-closed-err');
    const noErr = await closed('exec 2>&-', bytes);
    expect(noErr.code).toBe(2);
    expect(readFileSync(out).equals(bytes)).toBe(true);
    expect(readPid(`${out}.ppid`)).toBe(d.pid);
  });

  it.each([
    ['the socket is a symlink', 'socket'],
    ['the runtime dir is a symlink', 'dir'],
    ['the runtime dir is writable by its group', 'group'],
    ['the runtime dir is writable by everyone', 'world'],
  ])('%s: the Node path, with stdin untouched; the daemon sees nothing', async (_n, which) => {
    writeFastConfig(env, onToolEvents(`cat > "$OUT"; echo ${DAEMON_PID_SH} > "$OUT.ppid"`));
    const d = await daemon();
    const socket = fastSocket(env);
    if (which === 'socket') {
      renameSync(socket, `${socket}.moved`);
      symlinkSync(`${socket}.moved`, socket);
    } else if (which === 'dir') {
      const moved = `${env.HOOKD_RUNTIME_DIR!}.real`;
      renameSync(env.HOOKD_RUNTIME_DIR!, moved);
      symlinkSync(moved, env.HOOKD_RUNTIME_DIR!);
    } else {
      chmodSync(env.HOOKD_RUNTIME_DIR!, which === 'group' ? 0o770 : 0o777);
    }
    const out = join(tmp.dir, 'out');
    const bytes = toolEvent('s1-link');
    const ran = await run(native, bytes, { OUT: out });
    expect(ran.code, ran.stderr.toString()).toBe(0);
    expect(readFileSync(out).equals(bytes)).toBe(true);
    expect(readPid(`${out}.ppid`)).not.toBe(d.pid); // the Node path ran it
    // And it says why in the hook log: the client would not talk to what it found.
    expect(hookLogRecords(env).some((r) => r.kind === 'fast' && r.refused === 'runtime-dir')).toBe(true);
  });
});

describe('input the daemon cannot read, through the native client: a guard that fails closed still blocks', () => {
  const guardBlocks = {
    PreToolUse: [
      {
        matcher: 'Write|Execute',
        hooks: [
          {
            type: 'command',
            name: 'guard',
            command: `wc -c > "$OUT"; echo ${DAEMON_PID_SH} > "$OUT.ppid"; echo blocked >&2; exit 2`,
            onError: 'block',
          },
        ],
      },
    ],
    Stop: [{ hooks: [{ type: 'command', name: 'stop-guard', command: 'exit 2', onError: 'block' }] }],
  };
  const withEvent = (event: string) => `${native} --event ${event}`;

  it('not JSON, with the event on the command line: exit 2 from the daemon, "guard not run"', async () => {
    writeFastConfig(env, guardBlocks);
    const d = await daemon();
    const ran = await run(withEvent('PreToolUse'), Buffer.from('{"tool_name": "Write", cut'));
    expect(ran.code, ran.stderr.toString()).toBe(2);
    expect(ran.stderr.toString()).toMatch(/guard could not run \(hookd could not read this PreToolUse event/);
    await waitFor(
      () => hookLogRecords(env).some((r) => r.outcome === 'guard not run' && r.name === 'guard'),
      20_000,
      'the guard logged as not run',
    );
    // The daemon answered (the Node path would have logged from another process).
    expect(hookLogRecords(env).find((r) => r.outcome === 'guard not run')?.pid).toBe(d.pid);
    // Never on Stop: exit 2 there would make the agent go on.
    const stop = await run(withEvent('Stop'), Buffer.from('not json'));
    expect(stop.code).toBe(0);
  });

  it('a stdin the agent never closes: cut short after HOOKD_STDIN_TIMEOUT_MS, exit 2 for the guard', async () => {
    writeFastConfig(env, guardBlocks);
    const d = await daemon();
    const h = startHook(withEvent('PreToolUse'), {
      env: { ...env, HOOKD_STDIN_TIMEOUT_MS: '300', OUT: join(tmp.dir, 'never') },
      cwd: tmp.dir,
      stdin: Buffer.alloc(0),
      // The agent's shell keeps a writer of the client's stdin open (a FIFO held by a sleeping child).
      prelude: `mkfifo '${tmp.dir}/in'; { printf '%s' '{"hook_event_name":"PreToolUse","tool_name":"Execute"'; exec sleep 600; } > '${tmp.dir}/in' 2>/dev/null </dev/null & echo $! > '${tmp.dir}/writer.pid'; exec < '${tmp.dir}/in'`,
    });
    pids.push(h.child.pid!);
    const ran = await h.done;
    const writer = readPid(join(tmp.dir, 'writer.pid'));
    if (writer) pids.push(writer);
    expect(ran.code, ran.stderr.toString()).toBe(2);
    expect(ran.stderr.toString()).toMatch(/stdin was not closed within 300 ms/);
    expect(existsSync(join(tmp.dir, 'never'))).toBe(false);
    expect(hookLogRecords(env).find((r) => r.outcome === 'guard not run')?.pid).toBe(d.pid);
  });

  it('a 10 MiB Write: the guard runs with every byte (the Node path takes what the daemon does not hold)', async () => {
    writeFastConfig(env, guardBlocks);
    await daemon();
    const payload = Buffer.from(
      JSON.stringify({
        session_id: 's-big',
        hook_event_name: 'PreToolUse',
        tool_name: 'Write',
        tool_input: { file_path: 'big.txt', content: 'x'.repeat(10 * 1024 * 1024) },
      }),
    );
    const out = join(tmp.dir, 'big');
    const ran = await run(withEvent('PreToolUse'), payload, { OUT: out });
    expect(ran.code, ran.stderr.toString()).toBe(2);
    expect(Number(readFileSync(out, 'utf8').trim())).toBe(payload.length);
    expect(copies()).toEqual([]);
  });

  it('JSON behind a UTF-8 byte order mark is read as JSON: the guard runs and decides', async () => {
    writeFastConfig(env, guardBlocks);
    const d = await daemon();
    const out = join(tmp.dir, 'bom');
    const payload = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      toolEvent('s1-bom', { hook_event_name: 'PreToolUse', tool_name: 'Execute' }),
    ]);
    const ran = await run(native, payload, { OUT: out });
    expect(ran.code).toBe(2);
    expect(ran.stderr.toString()).toBe('blocked\n');
    expect(readPid(`${out}.ppid`)).toBe(d.pid);
  });
});
