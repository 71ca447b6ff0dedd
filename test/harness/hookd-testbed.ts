import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
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
  close(): Promise<void>;
}

export async function hookdTestbed(
  prefix: string,
  agent: string,
  hooks: Record<string, unknown>,
): Promise<HookdTestbed> {
  const tmp = makeTempDir(prefix);
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

/** A command that never ends on its own: hookd's timeout (1 s) ends it, not the agent's. */
export const HANGING = { hooks: [{ type: 'command', command: 'sleep 600', timeout: 1 }] };
