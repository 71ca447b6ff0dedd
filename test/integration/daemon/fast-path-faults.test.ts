import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readPid } from '../../helpers/procs.js';
import { makeTempDir } from '../../helpers/temp.js';
import { waitFor } from './helpers.js';
import { BIN, exited, stopDaemon, useProcessCleanup } from './process-helpers.js';
import {
  CLIENT_KINDS,
  DAEMON_PID_SH,
  daemonOf,
  fakeListener,
  fastSocket,
  handOffEnv,
  journaledTags,
  NATIVE_CLIENT,
  onToolEvents,
  pidsGone,
  signalQuietly,
  startFastDaemon,
  startHook,
  toolEvent,
  type ClientKind,
  useClient,
  writeFastConfig,
} from './fast-client-helpers.js';

// The fast path's faults, black-box: the real fast client run as the agent runs it, a real daemon process
// stopped, killed and restarted under it, listeners that are not a working daemon, hostile bytes. What
// is observed: the lines the commands append, the pids they write, the journal, the logs, exit codes.

const { pids, cleanups } = useProcessCleanup();
let tmp: ReturnType<typeof makeTempDir>;
let env: Record<string, string>;
let runs: string;
const daemons: ChildProcess[] = [];

beforeEach(() => {
  tmp = makeTempDir('hkff-');
  env = handOffEnv(tmp.dir);
  runs = join(tmp.dir, 'runs');
});
afterEach(async () => {
  for (const d of daemons.splice(0)) {
    signalQuietly(d.pid, 'SIGCONT');
    await stopDaemon(d);
  }
  tmp.cleanup();
});

const inflight = () => join(env.HOOKD_STATE_DIR!, 'daemon', 'inflight');
/** The hand-offs of the journal's `in` records. */
function journaledIn(e: Record<string, string>) {
  type In = { event: { id: string; payload: { tag?: string } }; results: { spawnError?: string }[] };
  return readFileSync(join(e.HOOKD_STATE_DIR!, 'daemon', 'journal.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .flatMap((l) => {
      try {
        const r = JSON.parse(l) as { t: string; h?: In };
        return r.t === 'in' && r.h ? [r.h] : [];
      } catch {
        return []; // a torn last line of a killed daemon
      }
    });
}
/** One line per run of the command: the event's tag (from the payload's env, TAG) and who ran it. */
const APPEND = `printf "%s %s\\n" "$TAG" "${DAEMON_PID_SH}" >> "$RUNS"`;
const ranLines = (tag: string) =>
  existsSync(runs)
    ? readFileSync(runs, 'utf8')
        .split('\n')
        .filter((l) => l.split(' ')[0] === tag)
    : [];

async function daemon(): Promise<ChildProcess> {
  const d = await startFastDaemon(env);
  daemons.push(d);
  return d;
}

async function hook(tag: string, more: Record<string, string> = {}, transport = 'fast') {
  const run = startHook(transport, {
    env: { ...env, RUNS: runs, TAG: tag, ...more },
    cwd: tmp.dir,
    stdin: toolEvent(tag),
  });
  pids.push(run.child.pid!);
  return run.done;
}

describe.each(CLIENT_KINDS)('the %s fast client', (kind: ClientKind) => {
  beforeAll(() => useClient(kind));

  describe('each command runs exactly once, whatever the daemon does', () => {
    it('no daemon at all: the fallback runs it once, and the spooled event is journaled once by the next daemon', async () => {
      writeFastConfig(env, onToolEvents(APPEND));
      const ran = await hook('s1-none');
      expect(ran.code, ran.stderr.toString()).toBe(0);
      expect(ranLines('s1-none')).toHaveLength(1);
      await daemon();
      expect(journaledTags(env).filter((t) => t === 's1-none')).toHaveLength(1);
    });

    it('a hung daemon (SIGSTOP): the client falls back after its bounded wait; after SIGCONT nothing runs again', async () => {
      writeFastConfig(env, onToolEvents(APPEND), { daemon: { handoffTimeoutMs: 250 } });
      const d = await daemon();
      signalQuietly(d.pid, 'SIGSTOP');
      const ran = await hook('s1-hung', { HOOKD_CLIENT_WAIT_S: '1' });
      expect(ran.code, ran.stderr.toString()).toBe(0);
      expect(ranLines('s1-hung')).toHaveLength(1);
      expect(ranLines('s1-hung')[0]).not.toBe(`s1-hung ${d.pid}`); // the Node path ran it
      signalQuietly(d.pid, 'SIGCONT');
      // The resumed daemon has its stale connections and hand-off in its queue; a new event through it
      // is answered after them, and the spool scan has taken the spooled copy by the time it is journaled.
      const next = await hook('s1-next');
      expect(next.code, next.stderr.toString()).toBe(0);
      expect(ranLines('s1-next')).toEqual([`s1-next ${d.pid}`]);
      await stopDaemon(daemons.pop());
      await daemon(); // a restart drains whatever is left in the spool
      expect(ranLines('s1-hung')).toHaveLength(1);
      expect(journaledTags(env).filter((t) => t === 's1-hung')).toHaveLength(1);
    });

    it('a daemon killed (SIGKILL) before it acknowledged: the fallback runs it once; journaled once after a restart', async () => {
      writeFastConfig(env, onToolEvents(APPEND), { daemon: { handoffTimeoutMs: 250 } });
      const d = await daemon();
      // Stopped first, so it cannot acknowledge; killed while the client waits on it.
      signalQuietly(d.pid, 'SIGSTOP');
      const pending = hook('s1-killed', { HOOKD_CLIENT_WAIT_S: '30' });
      await waitFor(
        () => pendingConnections(fastSocket(env)) > 0,
        20_000,
        'the client connected to the stopped daemon',
      );
      signalQuietly(d.pid, 'SIGKILL');
      const ran = await pending;
      expect(ran.code, ran.stderr.toString()).toBe(0);
      expect(ranLines('s1-killed')).toHaveLength(1);
      daemons.splice(0);
      await daemon();
      expect(ranLines('s1-killed')).toHaveLength(1);
      expect(journaledTags(env).filter((t) => t === 's1-killed')).toHaveLength(1);
    });

    it('a daemon killed (SIGKILL) after it acknowledged, command running: no fallback, a restart does not run it again', async () => {
      const pidFile = join(tmp.dir, 'cmd.pid');
      writeFastConfig(
        env,
        onToolEvents(`${APPEND}; if [ "$TAG" = s1-acked ]; then echo $$ > ${pidFile}; exec sleep 300; fi`),
      );
      const d = await daemon();
      const pending = hook('s1-acked');
      await waitFor(() => readPid(pidFile), 20_000, 'the command to start');
      pids.push(readPid(pidFile)!);
      signalQuietly(d.pid, 'SIGKILL');
      const ran = await pending;
      expect(ran.code).toBe(1); // non-blocking: the agent goes on; said, on stderr: the daemon went away
      expect(ran.stderr.toString()).not.toBe('');
      daemons.splice(0);
      const again = await daemon();
      const next = await hook('s1-after');
      expect(ranLines('s1-after')).toEqual([`s1-after ${again.pid}`]);
      expect(next.code, next.stderr.toString()).toBe(0);
      expect(ranLines('s1-acked')).toEqual([`s1-acked ${d.pid}`]);
      // The event the dead daemon had acknowledged is journaled once by the next one, its command's
      // outcome "may not have run"; the in-flight records are gone once events are handed off.
      const acked = journaledIn(env).filter((h) => h.event.payload.tag === 's1-acked');
      expect(acked).toHaveLength(1);
      expect(acked[0]!.results.map((r) => r.spawnError)).toEqual([expect.stringContaining('died')]);
      // Answered once its command ran, before its hand-off (its in-flight record covers that): waited for.
      await waitFor(() => journaledTags(env).includes('s1-after'), 20_000, 's1-after journaled');
      expect(journaledTags(env).filter((t) => t === 's1-after')).toHaveLength(1);
      await waitFor(
        () => readdirSync(inflight()).filter((n) => n.endsWith('.json')).length === 0,
        20_000,
        'the in-flight records removed',
      );
    });

    it('a daemon killed after it acknowledged an event with a guard that fails closed: the client exits 2', async () => {
      const pidFile = join(tmp.dir, 'cmd.pid');
      const guard = `${APPEND}; echo $$ > ${pidFile}; exec sleep 300`;
      writeFastConfig(env, onToolEvents(guard, { blocking: true, onError: 'block' }));
      const d = await daemon();
      const pending = hook('s1-guard');
      await waitFor(() => readPid(pidFile), 20_000, 'the command to start');
      pids.push(readPid(pidFile)!);
      signalQuietly(d.pid, 'SIGKILL');
      const ran = await pending;
      expect(ran.code).toBe(2);
      expect(ran.stderr.toString()).toContain('went away');
    });

    it('an in-flight record that is not an event is moved aside; the daemon starts', async () => {
      writeFastConfig(env, onToolEvents(APPEND));
      mkdirSync(inflight(), { recursive: true, mode: 0o700 });
      writeFileSync(join(inflight(), '0000000000001-bad.json'), '{"v":1,"type":"event"}', { mode: 0o600 });
      await daemon();
      expect(existsSync(join(inflight(), 'rejected', '0000000000001-bad.json'))).toBe(true);
      expect(existsSync(join(inflight(), '0000000000001-bad.json'))).toBe(false);
      await hook('s1-next');
      await waitFor(() => journaledTags(env).includes('s1-next'), 20_000, 's1-next journaled');
      expect(journaledTags(env).filter((t) => t === 's1-next')).toHaveLength(1);
    });
  });

  describe('a client killed mid-event (the agent at its hook timeout) kills the event commands', () => {
    it('SIGKILL or SIGTERM, to the client or to its process group, one after another to one daemon', async () => {
      // The command and a grandchild of its own, in files named by the run's TAG; both must be gone.
      const pidFile = `${tmp.dir}/"$TAG".pid`;
      writeFastConfig(
        env,
        onToolEvents(`echo $$ > ${pidFile}; sleep 300 & echo $! > ${pidFile}.child; wait`, { timeout: 600 }),
      );
      const d = await daemon();
      const cases = [
        ['SIGKILL', 'the client'],
        ['SIGTERM', 'the client'],
        ['SIGKILL', 'its process group'],
        ['SIGTERM', 'its process group'],
      ] as const;
      for (const [i, [signal, target]] of cases.entries()) {
        const what = `${signal} to ${target}`;
        const tag = `abandoned-${i}`;
        const run = startHook('fast', { env: { ...env, TAG: tag }, cwd: tmp.dir, stdin: toolEvent(tag) });
        pids.push(run.child.pid!);
        const files = [join(tmp.dir, `${tag}.pid`), join(tmp.dir, `${tag}.pid.child`)];
        await waitFor(() => readPid(files[1]!), 20_000, `the command to start (${what})`);
        pids.push(...files.map((f) => readPid(f)!));
        // Run by the daemon: the fast path is under test.
        expect(daemonOf(readPid(files[0]!)!), what).toBe(d.pid);
        signalQuietly(target === 'the client' ? run.child.pid : -run.child.pid!, signal);
        await run.done;
        expect(await pidsGone(files), what).toBe(true);
      }
    });
  });

  describe("a listener of the user's own that is not a working daemon", () => {
    const peers: [string, (s: Socket) => void][] = [
      ['never answers', () => {}],
      ['closes at once', (s) => s.end()],
      ['speaks another protocol', (s) => s.write('SSH-2.0-OpenSSH_9.2\r\n')],
      ['speaks binary', (s) => s.write(randomBytes(64))],
      ['acknowledges with a bad lost code', (s) => s.write('ACK 7 e1\n')],
      ['acknowledges without an id', (s) => s.write('ACK 1\n')],
      ['sends an over-long line', (s) => s.write(`ACK 1 ${'x'.repeat(4096)}\n`)],
      ['denies', (s) => s.write('DENY no\n')],
    ];
    // All at once, each listener in a runtime dir of its own: the one that never answers costs the
    // client's bounded wait, and the others need not wait behind it.
    it('none of them: the Node path runs the event once', async () => {
      const results = await Promise.all(
        peers.map(async ([name, answer], i) => {
          const dir = join(tmp.dir, `peer-${i}`);
          mkdirSync(dir);
          const peerEnv = handOffEnv(dir);
          writeFastConfig(peerEnv, onToolEvents(APPEND), { daemon: { handoffTimeoutMs: 100 } });
          let connections = 0;
          await fakeListener(
            peerEnv,
            (s) => {
              connections++;
              s.once('data', () => answer(s));
            },
            cleanups,
          );
          const out = join(dir, 'runs');
          const run = startHook('fast', {
            env: { ...peerEnv, RUNS: out, TAG: 's1-peer', HOOKD_CLIENT_WAIT_S: '1' },
            cwd: tmp.dir,
            stdin: toolEvent('s1-peer'),
          });
          pids.push(run.child.pid!);
          const ran = await run.done;
          const lines = existsSync(out) ? readFileSync(out, 'utf8').split('\n').filter(Boolean) : [];
          return { name, ran, lines, connections };
        }),
      );
      for (const { name, ran, lines, connections } of results) {
        expect(ran.code, `one that ${name}: ${ran.stderr.toString()}`).toBe(0);
        expect(lines, `one that ${name}`).toHaveLength(1);
        expect(connections, `one that ${name}: the client did try the socket`).toBe(1);
      }
    });
  });

  describe('hostile bytes reach the commands unchanged and are never evaluated', () => {
    const marker = () => join(tmp.dir, 'pwned');
    const hostileValues = (m: string): Record<string, string> => ({
      H_SUBST: `$(touch ${m})`,
      H_BACKTICK: `\`touch ${m}\``,
      H_QUOTES: `'; touch ${m}; echo '"; touch ${m}; echo "`,
      H_NEWLINES: `line1\ntouch ${m}\n\nline4\r\n`,
      H_EQUALS: '=a=b==c=',
      H_PRINTF: '%s%n%d %% \\n \\0 \\x41 -e -n',
      H_GLOB: '* ? [a-z] ~ ~root {a,b} $HOME ${HOME}',
      H_SPACES: '  leading and trailing  \t',
      H_EMPTY: '',
      H_DASH: '--agent claude',
      H_UNICODE: 'é ü 中文 \u{1F600} \u202E rtl \u200B',
      H_LONG: 'x'.repeat(100_000),
      // Names bash exports like any other: lower case, digits, underscores.
      h_lower: 'lower',
      _H_UNDER_1: 'under',
    });
    const DUMP = `env -0 > "$OUT.env"; cat > "$OUT.stdin"; echo ${DAEMON_PID_SH} > "$OUT.ppid"`;

    function envOf(file: string): Map<string, string> {
      const entries = readFileSync(file, 'utf8').split('\0').filter(Boolean);
      return new Map(entries.map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]));
    }

    it('in the environment and the payload, through the client as through the Node path', async () => {
      writeFastConfig(env, onToolEvents(DUMP));
      const d = await daemon();
      const m = marker();
      const values = hostileValues(m);
      const payload = toolEvent('s1-hostile', {
        tool_input: { command: `$(touch ${m}); \`touch ${m}\` '"\n\\" ${values.H_UNICODE}` },
        [`$(touch ${m})`]: values.H_QUOTES,
      });
      const seen: Record<string, Map<string, string>> = {};
      for (const transport of ['fast', 'node']) {
        const out = join(tmp.dir, transport);
        const run = startHook(transport, {
          env: { ...env, ...values, OUT: out },
          cwd: tmp.dir,
          stdin: payload,
        });
        pids.push(run.child.pid!);
        const ran = await run.done;
        expect(ran.code, ran.stderr.toString()).toBe(0);
        expect(readFileSync(`${out}.stdin`)).toEqual(payload);
        seen[transport] = envOf(`${out}.env`);
        for (const [name, value] of Object.entries(values))
          expect(seen[transport]!.get(name), name).toBe(value);
      }
      expect(existsSync(m)).toBe(false);
      // The client's run was the daemon's (a fallback would prove nothing about the fast path).
      expect(readPid(join(tmp.dir, 'fast.ppid'))).toBe(d.pid);
      expect(readPid(join(tmp.dir, 'node.ppid'))).not.toBe(d.pid);
    });

    it('bytes that are not UTF-8 in a value reach the command as they do through the Node path', async () => {
      writeFastConfig(
        env,
        onToolEvents(`printf %s "$H_BINARY" > "$OUT"; echo ${DAEMON_PID_SH} > "$OUT.ppid"`),
      );
      const d = await daemon();
      const got: Record<string, Buffer> = {};
      for (const transport of ['fast', 'node']) {
        const out = join(tmp.dir, transport);
        // Raw bytes 0x01..0xff (no NUL) exported by the agent's shell, as a value can hold them.
        const prelude = `H_BINARY="$(printf '${[...Array(255).keys()]
          .map((i) => `\\${(i + 1).toString(8).padStart(3, '0')}`)
          .join('')}')"; export H_BINARY`;
        const run = startHook(transport, {
          env: { ...env, OUT: out },
          cwd: tmp.dir,
          stdin: toolEvent('s1-binary'),
          prelude,
        });
        pids.push(run.child.pid!);
        const ran = await run.done;
        expect(ran.code, ran.stderr.toString()).toBe(0);
        got[transport] = readFileSync(out);
      }
      expect(got.fast).toEqual(got.node);
      expect(readPid(join(tmp.dir, 'fast.ppid'))).toBe(d.pid);
      // Valid UTF-8 and ASCII control bytes pass as they are (a newline is not trimmed by $(...) here).
      expect(got.fast!.subarray(0, 9)).toEqual(Buffer.from([1, 2, 3, 4, 5, 6, 7, 8, 9]));
      expect(existsSync(marker())).toBe(false);
    });

    it('variable names: every name of the environment is carried, as the agent gave it', async () => {
      writeFastConfig(env, onToolEvents(`env -0 > "$OUT"; echo ${DAEMON_PID_SH} > "$OUT.ppid"`));
      const d = await daemon();
      const names = ['A.B', 'A-B', '1X', 'X Y', 'é', 'A_B', 'a', '_', 'X__', `L${'N'.repeat(200)}`];
      const carried: Record<string, string[]> = {};
      for (const transport of ['fast', 'node']) {
        const out = join(tmp.dir, transport);
        // Exec'd directly (no sh: dash drops these names before any transport sees them).
        const argv =
          transport === 'fast'
            ? [NATIVE_CLIENT, '--agent', 'droid']
            : [process.execPath, BIN, 'hook', '--agent', 'droid'];
        const extra = Object.fromEntries(names.map((n, i) => [n, `v${i}`]));
        const child = spawn(argv[0]!, argv.slice(1), {
          env: { ...env, ...extra, OUT: out },
          cwd: tmp.dir,
          stdio: ['pipe', 'ignore', 'ignore'],
        });
        pids.push(child.pid!);
        child.stdin.end(toolEvent('s1-names'));
        await new Promise((r) => child.once('close', r));
        const e = envOf(out);
        carried[transport] = names.filter((n) => e.get(n) === `v${names.indexOf(n)}`);
      }
      expect(readPid(join(tmp.dir, 'fast.ppid'))).toBe(d.pid);
      // What the command's own shell (`sh -c`) keeps of them, the same through both paths.
      expect(carried.fast).toEqual(carried.node);
      const show = (list: string[]) =>
        list.map((n) => JSON.stringify(n.length > 20 ? `${n.slice(0, 8)}...` : n)).join(' ');
      // For the docs: what a command run by `sh -c` sees of each name, per transport (the command's own
      // shell may drop names too: dash does).
      console.log(
        `fast-path-faults: names reaching the command: fast ${show(carried.fast!)}; node ${show(carried.node!)}`,
      );
    });

    // Shell start-up variables in the agent's environment act on a shell, never on the native client:
    // nothing is traced on its stderr and no BASH_ENV file runs.
    it.each([
      ['SHELLOPTS=xtrace', { SHELLOPTS: 'xtrace' }],
      ['BASH_ENV', { BASH_ENV: '__MARKER_SCRIPT__' }],
    ])('%s in the agent environment changes nothing in the client', async (_n, extra) => {
      writeFastConfig(env, onToolEvents('true'));
      await daemon();
      const m = marker();
      writeFileSync(join(tmp.dir, 'bash-env.sh'), `touch '${m}'\n`);
      const more = Object.fromEntries(
        Object.entries(extra).map(([k, v]) => [
          k,
          v.replace('__MARKER_SCRIPT__', join(tmp.dir, 'bash-env.sh')),
        ]),
      );
      const ran = await startHook('fast', {
        env: { ...env, ...more },
        cwd: tmp.dir,
        stdin: toolEvent('s1-bashvars'),
      }).done;
      expect(ran.code).toBe(0);
      expect(ran.stderr.toString()).toBe('');
      expect(existsSync(m)).toBe(false);
    });

    it('a payload of 8 MiB reaches the command byte-identical (sha256), run by the daemon', async () => {
      writeFastConfig(env, onToolEvents(`sha256sum > "$OUT"; echo ${DAEMON_PID_SH} > "$OUT.ppid"`));
      const d = await daemon();
      const head = toolEvent('s1-big', { pad: '' });
      // Multi-byte UTF-8 and every escape JSON allows, up to exactly 8 MiB.
      const unit = 'é中\u{1F600}\\"\\n\\u0000 abc ';
      const room = 8 * 1024 * 1024 - head.length;
      let pad = unit.repeat(Math.floor(room / Buffer.byteLength(unit)));
      pad += 'x'.repeat(room - Buffer.byteLength(pad));
      const bytes = Buffer.from(head.toString().replace('"pad":""', `"pad":"${pad}"`));
      expect(bytes.length).toBe(8 * 1024 * 1024);
      const out = join(tmp.dir, 'big');
      // A loaded machine may take long to copy 8 MiB: the client waits for the daemon (what is checked
      // here is the daemon's run of it, not the client's bounded wait).
      const run = startHook('fast', {
        env: { ...env, OUT: out, HOOKD_CLIENT_WAIT_S: '60' },
        cwd: tmp.dir,
        stdin: bytes,
      });
      pids.push(run.child.pid!);
      const ran = await run.done;
      expect(ran.code, ran.stderr.toString()).toBe(0);
      expect(readFileSync(out, 'utf8').split(' ')[0]).toBe(createHash('sha256').update(bytes).digest('hex'));
      expect(readPid(`${out}.ppid`)).toBe(d.pid);
    });
  });
});

/**
 * Connections to the unix socket at `path` that its listener has not accepted yet (Linux: /proc/net/unix
 * lists them under the listener's path, without the listening flag).
 */
function pendingConnections(path: string): number {
  return readFileSync('/proc/net/unix', 'utf8')
    .split('\n')
    .slice(1)
    .filter((line) => {
      const f = line.trim().split(/\s+/);
      return f[7] === path && (parseInt(f[3] ?? '0', 16) & 0x10000) === 0;
    }).length;
}

// The acknowledged event whose GO never reached the daemon: the daemon wrote the event's in-flight record
// and its ACK, then died; the client's GO write failed, so the client ran the Node path (which runs the
// commands and spools the event). The next daemon journals the spooled event and finds the dead daemon's
// in-flight record: one event, so one `in` record, with the outcomes of the commands that really ran.
// Made deterministic with a relay between the client and the real daemon (the daemon's socket is moved
// aside and the relay listens in its place): when the daemon's ACK line comes, the relay stops the client (SIGSTOP, waited
// for), kills the daemon (SIGKILL, waited for), hands the ACK to the client and closes the connection.
// Resumed, the client reads the ACK (queued before the close) and its GO write fails.

/** A process's state letter from /proc (T: stopped). */
const procState = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]![0];
  } catch {
    return undefined;
  }
};

/**
 * The relay: the client connects here (in the daemon's place), every byte goes
 * through unchanged until the daemon's ACK line, which is held while `onAck` runs; then the ACK is written
 * to the client and the connection is closed (its GO write then fails). `reset` resolves once it is closed.
 */
async function goLosingRelay(onAck: () => Promise<void>) {
  // The daemon keeps listening on its socket under another name; the relay takes the name.
  const upstreamPath = `${fastSocket(env)}.daemon`;
  renameSync(fastSocket(env), upstreamPath);
  const acks: string[] = [];
  let settle: () => void = () => {};
  const reset = new Promise<void>((resolve) => (settle = resolve));
  const server: Server = createServer((client: Socket) => {
    const upstream = createConnection(upstreamPath);
    let pending = Buffer.alloc(0);
    let held = false;
    client.on('error', () => {});
    upstream.on('error', () => {});
    client.once('close', () => upstream.destroy());
    client.on('data', (c) => upstream.write(c));
    upstream.on('data', (c: Buffer) => {
      if (held) return;
      pending = Buffer.concat([pending, c]);
      for (let nl = pending.indexOf(10); nl >= 0; nl = pending.indexOf(10)) {
        const line = pending.subarray(0, nl + 1);
        pending = pending.subarray(nl + 1);
        if (!line.toString('latin1').startsWith('ACK ')) {
          client.write(line);
          continue;
        }
        held = true;
        acks.push(line.toString('latin1').trim());
        client.once('close', settle);
        void onAck().then(() => client.write(line, () => client.destroy()));
        return;
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(fastSocket(env), resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { acks, reset };
}

describe.each(CLIENT_KINDS)('the %s fast client, its GO lost with the daemon', (kind: ClientKind) => {
  beforeAll(() => useClient(kind));

  it('runs the commands once through the Node path; the event is journaled once, with what really ran', async () => {
    writeFastConfig(env, onToolEvents(APPEND), { daemon: { handoffTimeoutMs: 250 } });
    const d = await daemon();
    const relay = await goLosingRelay(async () => {
      signalQuietly(run.child.pid, 'SIGSTOP');
      await waitFor(() => procState(run.child.pid!) === 'T', 20_000, 'the client stopped');
      const gone = exited(d);
      signalQuietly(d.pid, 'SIGKILL');
      await gone;
      daemons.splice(daemons.indexOf(d), 1);
    });

    const run = startHook('fast', {
      env: { ...env, RUNS: runs, TAG: 's1-go' },
      cwd: tmp.dir,
      stdin: toolEvent('s1-go'),
    });
    pids.push(run.child.pid!);
    // The daemon is dead, its record left, the ACK queued on the client's socket before the close.
    await relay.reset;
    expect(readdirSync(inflight()).filter((n) => n.endsWith('.json'))).toHaveLength(1);
    signalQuietly(run.child.pid, 'SIGCONT');
    const ran = await run.done;
    expect(ran.code, ran.stderr.toString()).toBe(0);
    // The Node path ran the command (the daemon, which waits for GO, never did).
    expect(ranLines('s1-go')).toHaveLength(1);
    expect(ranLines('s1-go')[0]).not.toBe(`s1-go ${d.pid}`);
    const ackedId = relay.acks[0]!.split(' ')[2];

    await daemon();
    expect(readdirSync(inflight()).filter((n) => n.endsWith('.json'))).toEqual([]);
    const journaled = journaledIn(env).filter((h) => h.event.payload.tag === 's1-go');
    expect(journaled).toHaveLength(1);
    // The one the Node path handed over, under the id the daemon acknowledged: its command ran.
    expect(journaled[0]!.event.id).toBe(ackedId);
    expect(journaled[0]!.results.map((r) => r.spawnError)).toEqual([undefined]);
    expect(ranLines('s1-go')).toHaveLength(1);
  });
});

describe.each(CLIENT_KINDS)('HOOKD_FAST_EVENT_ID in the agent environment, %s client', (kind: ClientKind) => {
  beforeAll(() => useClient(kind));

  it('names no event and never reaches a command: the Node path, a client falling back before any ACK', async () => {
    const seen = join(tmp.dir, 'seen');
    writeFastConfig(env, onToolEvents(`printf "%s\\n" "\${HOOKD_FAST_EVENT_ID-unset}" >> ${seen}`));
    const inherited = {
      HOOKD_FAST_EVENT_ID: 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee',
      HOOKD_CLIENT_WAIT_S: '1',
    };
    await daemon();
    // The ACK never reaches the client: it gives up after its wait and falls back with its stdin copy
    // (written at the fallback when the payload went inline), as after a lost ACK.
    const relay = await goLosingRelay(() => new Promise(() => {}));
    const runsOf = [
      ['node', toolEvent('s2-node')],
      ['fast', toolEvent('s2-inline')],
      ['fast', toolEvent('s2-copy', { big: 'x'.repeat(100_000) })],
    ] as const;
    // The three at once: each client waits out its own HOOKD_CLIENT_WAIT_S.
    const runs = runsOf.map(([transport, stdin]) => {
      const run = startHook(transport, { env: { ...env, ...inherited }, cwd: tmp.dir, stdin });
      pids.push(run.child.pid!);
      return run.done;
    });
    for (const done of await Promise.all(runs)) expect(done.code, done.stderr.toString()).toBe(0);
    expect(relay.acks).toHaveLength(2);
    expect(readFileSync(seen, 'utf8')).toBe('unset\nunset\nunset\n');
    const ids = await waitFor(
      () => {
        const found = journaledIn(env).filter((h) => h.event.payload.tag?.startsWith('s2-'));
        return found.length === 3 && found.map((h) => h.event.id);
      },
      20_000,
      'the three events journaled',
    );
    expect(new Set(ids).size).toBe(3);
    expect(ids).not.toContain(inherited.HOOKD_FAST_EVENT_ID);
  });
});
