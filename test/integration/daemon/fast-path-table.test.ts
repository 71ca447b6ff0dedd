import type { ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentPayload, runAsAgent } from '../../helpers/agent-spawn.js';
import { HOOK_CASES, type HookCase } from '../../helpers/hook-table.js';
import { readPid } from '../../helpers/procs.js';
import { makeTempDir } from '../../helpers/temp.js';
import { waitFor } from './helpers.js';
import { stopDaemon, useProcessCleanup } from './process-helpers.js';
import {
  DAEMON_PID_SH,
  CLIENT_KINDS,
  handOffEnv,
  hookLogRecords,
  startFastDaemon,
  TRANSPORTS,
  useClient,
  writeFastConfig,
  type Transport,
} from './fast-client-helpers.js';

// The shared test table (test/helpers/hook-table.ts) through BOTH paths, as the agent spawns the hook
// (`sh -c "<command>"`, its env with the payload's fields for Droid, its cwd and umask): the Node path
// `hookd hook` and the fast client through a real daemon. The agent must get the same exit code, stdout
// and stderr; the commands must see the same environment (HOOKD_* included), umask, cwd and stdin bytes.

useProcessCleanup();
let tmp: ReturnType<typeof makeTempDir>;
let env: Record<string, string>;
let project: string;
let daemon: ChildProcess;
const UMASK = '0027';

/** Records what the event's commands see; observe-only, silent, so it changes no decision. */
const WITNESS = {
  hooks: [
    {
      type: 'command',
      name: 'witness',
      blocking: false,
      command: `env -0 > "$W.env"; umask > "$W.umask"; pwd -P > "$W.pwd"; cat > "$W.stdin"; echo ${DAEMON_PID_SH} > "$W.ppid"`,
    },
  ],
};

/** Variables that differ by nature between two runs of an event (the rest must be equal). */
const PER_RUN = ['HOOKD_EVENT_ID', 'W'];
/** The fast client sends its environment as the agent gave it: only what differs per run may differ. */
const CLIENT_MODES = {
  native: { client: 'native', env: {}, differs: PER_RUN },
} as const;
const modes = Object.entries(CLIENT_MODES).filter(([, m]) => CLIENT_KINDS.includes(m.client));

function envOf(file: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of readFileSync(file, 'utf8').split('\0').filter(Boolean))
    out[e.slice(0, e.indexOf('='))] = e.slice(e.indexOf('=') + 1);
  return out;
}

beforeAll(async () => {
  tmp = makeTempDir('hktb-');
  env = handOffEnv(tmp.dir);
  project = join(tmp.dir, 'project');
  mkdirSync(project);
  mkdirSync(env.HOME!, { recursive: true });
  // The daemon's own config turns its listener on; each row has a config file of its own, named by
  // HOOKD_CONFIG in the agent's environment, which both paths read (the daemon loads the request's).
  writeFastConfig(env, {});
  daemon = await startFastDaemon(env);
});
afterAll(async () => {
  await stopDaemon(daemon);
  tmp.cleanup();
});

describe('the shared hook table, through the Node path and the fast client', () => {
  it.each(HOOK_CASES.map((c, i) => [c.name, c, i] as const))(
    '%s',
    async (_name, row: HookCase, i: number) => {
      const rowEnv = { ...env, HOOKD_CONFIG: join(tmp.dir, `row-${i}.json`) };
      writeFastConfig(rowEnv, { [row.event]: [...row.entries, WITNESS] });
      const payload = agentPayload(row.agent, row.event, { cwd: project });
      type Seen = { ran: Awaited<ReturnType<typeof runAsAgent>>; w: string; env: Record<string, string> };
      const run = async (name: string, transport: Transport, more: Record<string, string>): Promise<Seen> => {
        const w = join(tmp.dir, `w-${i}-${name}`);
        const ran = await runAsAgent(payload, {
          env: { ...rowEnv, ...more, W: w },
          cwd: project,
          agent: row.agent,
          command: TRANSPORTS[transport](row.agent),
          prelude: `umask ${UMASK}`,
        });
        return { ran, w, env: envOf(`${w}.env`) };
      };
      const read = (t: Seen, part: string) => readFileSync(`${t.w}.${part}`);
      // The daemon may log an event just after it answered the client: wait for the record.
      const record = async (t: Seen) => {
        const find = () =>
          hookLogRecords(env).find((l) => l.kind === 'event' && l.eventId === t.env.HOOKD_EVENT_ID);
        const r = await waitFor(find, 20_000, `the event record of ${t.w}`);
        const { time: _t, pid: _p, eventId: _e, durationMs: _d, handoff, ...rest } = r;
        return { ...rest, handoff };
      };
      const node = await run('node', 'node', {});
      const nodeRecord = await record(node);
      for (const [mode, { client, env: modeEnv, differs }] of modes) {
        useClient(client);
        const fast = await run(mode, 'fast', modeEnv);
        // What the agent gets: as the row says, and the same both ways.
        for (const { ran } of [node, fast]) {
          expect(ran.code, mode).toBe(row.expect.code);
          expect(ran.stdout, mode).toBe(row.expect.stdout);
          if (typeof row.expect.stderr === 'string') expect(ran.stderr, mode).toBe(row.expect.stderr);
          else expect(ran.stderr, mode).toMatch(row.expect.stderr);
        }
        // What the commands see: the same stdin bytes, umask, cwd and environment.
        expect(read(fast, 'stdin'), mode).toEqual(read(node, 'stdin'));
        expect(read(fast, 'stdin').toString()).toBe(row.agent === 'claude' ? `${payload}\n` : payload);
        expect(read(fast, 'umask').toString().trim(), mode).toBe(UMASK);
        expect(read(node, 'umask').toString().trim()).toBe(UMASK);
        expect(read(fast, 'pwd'), mode).toEqual(read(node, 'pwd'));
        const common = (e: Record<string, string>) =>
          Object.fromEntries(Object.entries(e).filter(([k]) => !(differs as readonly string[]).includes(k)));
        expect(common(fast.env), mode).toEqual(common(node.env));
        expect(Object.keys(fast.env).filter((k) => k.startsWith('HOOKD_')).length).toBeGreaterThanOrEqual(6);
        // Which path ran them: the daemon for the client (not its fallback), the hook process otherwise.
        expect(readPid(`${fast.w}.ppid`), mode).toBe(daemon.pid);
        expect(readPid(`${node.w}.ppid`)).not.toBe(daemon.pid);
        // The same log record of the event, both ways.
        // (The hand-off differs: the Node path leaves the event in the spool the daemon watches.)
        const fastRecord = await record(fast);
        expect({ ...fastRecord, handoff: 'queued' }, mode).toEqual(nodeRecord);
        expect(fastRecord.handoff, mode).toBe('acked');
        expect(fastRecord).toMatchObject({ commands: row.commands + 1 });
      }
    },
  );
});
