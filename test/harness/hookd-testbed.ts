import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SessionRecord } from '../../src/ledger/types.js';
import { jsonLines } from '../helpers/json-lines.js';
import { waitFor } from '../helpers/wait.js';
import { runHookd, type Ran } from '../helpers/run-hookd.js';
import { isolatedEnv, makeTempDir } from '../helpers/temp.js';
import { loopbackServer } from '../integration/daemon/helpers.js';
import { spawnDaemon, stopDaemon } from '../integration/daemon/process-helpers.js';

/**
 * hookd as a user runs it beside an agent the harness drives: a throwaway HOME and hookd config, a real
 * hookd daemon started here (outside the agent run's network and PID namespace: hooks reach it through
 * its unix socket), a webhook stand-in on loopback, and `hookd install --agent <agent>`.
 */
export interface HookdTestbed {
  dir: string;
  /** The environment of hookd and of the agent run (HOME, XDG dirs, HOOKD_* inside `dir`). */
  env: Record<string, string>;
  /** `hookd install --agent <agent>`, as run. */
  installed: Ran;
  /** The notifications the webhook got. */
  delivered(): { notification: { title: string; body: string; event: string; sessionId?: string } }[];
  /** The ledger's session records. */
  ledger(): SessionRecord[];
  /** Waits (bounded) for a Stop notification and a ledger record of the agent. */
  settled(agent: string): Promise<void>;
  /**
   * The pid of the hanging command (`hanging` in the hooks), once it is gone; throws when the command
   * never ran, and times out when it is still running.
   */
  hangingEnded(): Promise<number>;
  close(): Promise<void>;
}

export async function hookdTestbed(
  prefix: string,
  agent: string,
  hooksWith: (hanging: Record<string, unknown>) => Record<string, unknown>,
): Promise<HookdTestbed> {
  const tmp = makeTempDir(prefix);
  const pidFile = join(tmp.dir, 'hanging.pid');
  const hooks = hooksWith(hangingHook(pidFile));
  const receiver = await loopbackServer();
  const env = isolatedEnv(tmp.dir, {
    HOOKD_RUNTIME_DIR: join(tmp.dir, 'run'),
    HOOKD_STATE_DIR: join(tmp.dir, 'state'),
    HOOKD_DATA_DIR: join(tmp.dir, 'data'),
  });
  delete env.HOOKD_DAEMON;
  writeFileSync(
    env.HOOKD_CONFIG!,
    JSON.stringify({
      hooks,
      notify: {
        channels: { ops: { type: 'webhook', url: `${receiver.url}/hookd` } },
        rules: [{ name: 'finished', on: 'Stop', channels: ['ops'] }],
      },
      enrich: { gitBranch: false },
      daemon: { handoffTimeoutMs: 5000, autoStart: false },
    }),
  );
  let daemon: ChildProcess | undefined;
  try {
    daemon = await spawnDaemon(env);
  } catch (error) {
    await receiver.close();
    tmp.cleanup();
    throw error;
  }
  const installed = await runHookd(['install', '--agent', agent], { env, cwd: tmp.dir });
  const delivered = () =>
    receiver.received
      .filter((r) => r.method === 'POST')
      .map((r) => r.json as ReturnType<HookdTestbed['delivered']>[number]);
  const ledger = () => jsonLines<SessionRecord>(join(env.HOOKD_DATA_DIR!, 'ledger', 'sessions.jsonl'));
  return {
    dir: tmp.dir,
    env,
    installed,
    delivered,
    ledger,
    settled: async (kind) => {
      await waitFor(
        () =>
          delivered().some((d) => d.notification.event === 'Stop') && ledger().some((r) => r.agent === kind),
        60_000,
        `the Stop notification and the ledger record of the ${kind} session`,
      );
    },
    hangingEnded: async () => {
      if (!existsSync(pidFile)) throw new Error(`the hanging command never ran (no ${pidFile})`);
      const pid = Number(readFileSync(pidFile, 'utf8').trim());
      await waitFor(() => !isHanging(pid), 10_000, `the end of the hanging command (pid ${pid})`);
      return pid;
    },
    close: async () => {
      await stopDaemon(daemon);
      await receiver.close();
      tmp.cleanup();
    },
  };
}

/** The guard both e2e files install: refuse a shell command that names "forbidden". */
export function forbiddenGuard(shellTool: string): Record<string, unknown> {
  return {
    matcher: shellTool,
    commandRegex: 'forbidden',
    hooks: [{ type: 'command', command: 'echo "no files named forbidden here" >&2; exit 2' }],
  };
}

/**
 * A guard that counts its runs, for the doubled-entry tests: one line per run in `guard-runs.txt` beside
 * the agent's HOME (the testbed's folder), the agent hookd took the event for and whether the call
 * names "forbidden". `first`, a shell command, runs before it counts.
 */
export function countingGuard(matcher: string, first = ''): Record<string, unknown> {
  const count =
    'if grep -q forbidden; then c=forbidden; else c=other; fi; ' +
    'printf "%s %s\\n" "$HOOKD_AGENT" "$c" >> "$HOME/../guard-runs.txt"';
  return { matcher, hooks: [{ type: 'command', name: 'count', command: `${first}${count}` }] };
}

/** The lines countingGuard wrote in the testbed's folder `dir`. */
export function guardRuns(dir: string): string[] {
  const file = join(dir, 'guard-runs.txt');
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
}

const HANGING_ARGV = ['sleep', '600'];

/**
 * A command that never ends on its own: hookd's timeout (1 s) ends it, not the agent's. It writes its
 * pid first (it then becomes the sleep), so a test can tell that it ran and that it was ended.
 */
function hangingHook(pidFile: string): Record<string, unknown> {
  const command = `echo $$ > '${pidFile}'; exec ${HANGING_ARGV.join(' ')}`;
  return { hooks: [{ type: 'command', command, timeout: 1 }] };
}

/** Whether `pid` is still the hanging command (a zombie, or a reused pid, is not). */
function isHanging(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8') === `${HANGING_ARGV.join('\0')}\0`;
  } catch {
    return false;
  }
}
