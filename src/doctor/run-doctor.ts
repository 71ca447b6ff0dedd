import { daemonState } from '../daemon/admin.js';
import { dirname, join } from 'node:path';
import { buildChannels } from '../channels/build-channels.js';
import type { Channel } from '../channels/channel.js';
import { daemonSettings } from '../config/schemas/daemon-schema.js';
import { notifySettings, type NotifyConfig } from '../config/schemas/notify-schema.js';
import type { HookdConfig } from '../config/schemas/schema.js';
import { existsSync } from 'node:fs';
import { AGENT_PROFILES, AGENTS, type Agent } from '../install/agents.js';
import { hookdHooksAt } from '../install/hookd-layers.js';
import type { Env } from '../paths.js';
import { inspectAgentFiles, type SettingsFileState } from './checks/agent/agent-settings.js';
import { checkEntryTimeouts } from './checks/agent/check-entry-timeouts.js';
import { checkHookTrust } from './checks/agent/check-hook-trust.js';
import { checkApiKey } from './checks/config/check-api.js';
import { checkTelemetry } from './checks/telemetry/check-telemetry.js';
import { checkWatch } from './checks/watch/check-watch.js';
import { checkRemote } from './checks/remote/check-remote.js';
import { checkBacklog } from './checks/daemon/check-backlog.js';
import { checkChannel } from './checks/notify/check-channels.js';
import { checkConfig } from './checks/config/check-config.js';
import { checkTrust } from './checks/config/check-trust.js';
import { checkDaemon } from './checks/daemon/check-daemon.js';
import { checkFast } from './checks/hook/check-fast.js';
import { checkDesktop } from './checks/notify/check-desktop.js';
import { checkPresence } from './checks/notify/check-presence.js';
import { checkClaudeLog } from './checks/agent/check-claude-log.js';
import { checkDroidLog } from './checks/agent/check-droid-log.js';
import {
  checkAgentWiring,
  checkHooksSwitches,
  checkSettingsFile,
  checkShadowing,
} from './checks/agent/check-agent-settings.js';
import { checkWiring } from './checks/hook/check-wiring.js';
import { checkLocation } from './checks/hook/check-location.js';
import { checkNodeVersion } from './checks/hook/check-node.js';
import { runDrill } from './checks/agent/drill.js';
import { readDaemonView } from './checks/daemon/daemon-view.js';
import { isDesktopChannel, usedChannels } from './checks/notify/notify-usage.js';
import { result, type CheckResult, type DoctorOptions } from './types.js';

/** Deadline of each network check unless told otherwise. */
export const DEFAULT_DOCTOR_TIMEOUT_MS = 3000;

interface Task {
  title: string;
  run: () => Promise<CheckResult | CheckResult[]>;
}

function safeNotify(config: HookdConfig | undefined): NotifyConfig {
  try {
    return notifySettings(config?.notify);
  } catch {
    return notifySettings(undefined);
  }
}

/** Each agent's own log check, for the agents whose logs doctor reads. */
const LOG_CHECKS: Partial<Record<Agent, (dir: string, now: number) => Promise<CheckResult>>> = {
  claude: (dir, now) => checkClaudeLog(join(dir, 'debug'), now),
  droid: (dir, now) => checkDroidLog(join(dir, 'logs'), now),
};

/**
 * An agent doctor may leave out: one that says nothing when it was never run here (no folder of its
 * own, none of its files) and hookd is not wired into it.
 */
function absentAgent(agent: Agent, states: readonly SettingsFileState[]): boolean {
  if (!AGENT_PROFILES[agent].quietWhenAbsent) return false;
  if (states.some((s) => s.exists) || hookdHooksAt(states).length > 0) return false;
  return !states.some((s) => s.layer === 'user' && existsSync(dirname(s.file)));
}

function agentChecks(agent: Agent, states: readonly SettingsFileState[], env: Env): CheckResult[] {
  return [checkHookTrust(agent, states, env), checkEntryTimeouts(agent, states)].filter(
    (c): c is CheckResult => c !== undefined,
  );
}

/**
 * Runs every check and returns their results in a fixed order. Checks run concurrently; each one that
 * throws becomes a `fail` result instead of ending the run.
 */
export async function runDoctor(options: DoctorOptions): Promise<CheckResult[]> {
  const env = options.env;
  const now = (options.now ?? Date.now)();
  const timeoutMs = options.timeoutMs ?? DEFAULT_DOCTOR_TIMEOUT_MS;
  const fetchImpl = options.fetch ?? fetch;
  const platform = options.platform ?? process.platform;
  const arch = options.arch ?? process.arch;

  const config = checkConfig(env, options.projectDir);
  const hookd = config.loaded?.config;
  const notify = safeNotify(hookd);
  const used = usedChannels(notify);
  const view = readDaemonView(env, Math.max(timeoutMs, 500));
  const inspect = options.claudeManagedDir ? { claudeManagedDir: options.claudeManagedDir } : {};
  const settings = Promise.all(
    AGENTS.map((agent) => inspectAgentFiles(agent, env, options.projectDir, inspect)),
  ).then((all) => all.flat());
  const built: Map<string, Channel> | undefined = options.sendTest
    ? buildChannels(notify, { env, fetch: fetchImpl, desktop: { env, platform, arch } })
    : undefined;

  const tasks: Task[] = [
    {
      title: 'Node.js version',
      run: async () => checkNodeVersion(options.nodeVersion ?? process.versions.node),
    },
    { title: 'hookd config', run: async () => config.result },
    { title: 'project trust', run: async () => checkTrust(env) },
    ...AGENTS.map((agent) => ({
      title: `${agent} settings`,
      run: async () => {
        const states = (await settings).filter((s) => s.agent === agent);
        if (absentAgent(agent, states)) return [];
        const checks = [
          // A file that is not there is a skip worth showing only for the settings files hookd writes.
          ...states
            .filter(
              (s) => s.exists || (s.kind === 'settings' && (s.layer === 'user' || s.layer === 'project')),
            )
            .map(checkSettingsFile),
          ...(agent === 'droid' ? [checkShadowing(states)] : []),
          checkHooksSwitches(agent, states),
          checkAgentWiring(agent, states, env),
          checkWiring(agent, states, hookd),
          checkLocation(agent, states),
          ...agentChecks(agent, states, env),
        ];
        if (options.drill) checks.push(await runDrill(agent, states, env, options.projectDir));
        const userFile = states.find((s) => s.layer === 'user' && s.kind === 'settings')!.file;
        const log = LOG_CHECKS[agent];
        return log ? [...checks, await log(dirname(userFile), now)] : checks;
      },
    })),
    {
      title: 'daemon',
      run: async () => checkDaemon(env, await view, daemonSettings(hookd?.daemon)),
    },
    {
      title: 'fast listener',
      run: async () => checkFast(env, await view, daemonSettings(hookd?.daemon), Math.min(timeoutMs, 2000)),
    },
    { title: 'spool and outbox', run: async () => checkBacklog(env, await view) },
    {
      title: 'desktop notifications',
      run: async () =>
        checkDesktop({
          env,
          platform,
          arch,
          notify,
          view: await view,
          sendThrough: [...used].filter((n) => isDesktopChannel(notify, n)).map((n) => built?.get(n))[0],
          now,
        }),
    },
    {
      title: 'presence',
      run: async () => checkPresence({ env, platform, notify, view: await view }),
    },
    ...Object.entries(notify.channels)
      .filter(([, channel]) => channel.type !== 'desktop')
      .map(([name, channel]) => ({
        title: `channel ${name}`,
        run: async () =>
          checkChannel({
            name,
            config: channel,
            env,
            used: used.has(name),
            view: await view,
            fetch: fetchImpl,
            timeoutMs,
            sendThrough: built?.get(name),
            now,
          }),
      })),
    { title: 'API key', run: () => checkApiKey(env, hookd?.api, { fetch: fetchImpl, timeoutMs }) },
    {
      title: 'telemetry',
      run: () => checkTelemetry(env, hookd?.telemetry, { daemon: () => daemonState(env) }),
    },
    {
      title: 'platform watchers',
      run: async () => checkWatch(env, hookd?.watch, notify, await view),
    },
    {
      title: 'remote answers',
      run: async () =>
        checkRemote(
          hookd?.remote,
          (await settings).filter((s) => s.agent === 'claude'),
        ),
    },
  ];

  let done = 0;
  const running = new Set(tasks.map((t) => t.title));
  const outcomes = await Promise.all(
    tasks.map(async (task) => {
      let out: CheckResult | CheckResult[];
      try {
        out = await task.run();
      } catch (error) {
        out = result(
          task.title.replace(/\s+/g, '-'),
          task.title,
          'fail',
          `the check itself failed: ${(error as Error).message}`,
          'report this as a hookd bug, with the output of `HOOKD_DEBUG=1 hookd doctor`',
        );
      }
      running.delete(task.title);
      options.onProgress?.({ done: ++done, total: tasks.length, running: [...running] });
      return out;
    }),
  );
  return outcomes.flat();
}
