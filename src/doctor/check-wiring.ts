import { existsSync, statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import type { HookdConfig } from '../config/schema.js';
import { FAST_CLIENT_VERSIONS, FAST_PROTOCOL } from '../daemon/fast-server.js';
import { HTTP_HOOK_PATH, readHttpToken } from '../daemon/http-credential.js';
import type { Agent } from '../install/agents.js';
import { fastClientOfHook, nativeClientProblem } from '../install/transport.js';
import { hookdProgramWords } from './hookd-program.js';
import type { Env } from '../paths.js';
import { serviceFilePath, servicePlatform } from '../service/install-service.js';
import { agentName, type SettingsFileState } from './agent-settings.js';
import {
  eventPaths,
  fixCommand,
  formatEventPath,
  matcherCovers,
  wiredHooksOf,
  type WiredHook,
} from './event-paths.js';
import { result, type CheckResult } from './types.js';

/** What is wrong with hookd's http hooks: the listener, the port, the token, the file's mode. */
function httpProblems(http: readonly WiredHook[], config: HookdConfig | undefined, env: Env): string[] {
  if (http.length === 0) return [];
  const problems: string[] = [];
  const listener = config?.daemon.httpHooks;
  if (!listener?.enabled)
    problems.push(
      'daemon.httpHooks.enabled is off: Claude Code posts to a port nobody answers, and those events are lost',
    );
  const ports = new Set(http.map((h) => new URL(h.hook.url as string).port));
  if (listener && [...ports].some((p) => Number(p) !== listener.port))
    problems.push(
      `the hooks post to port ${[...ports].join(', ')} but the daemon listens on ${listener.port}`,
    );
  const { token, problem } = readHttpToken(env);
  const headers = http.map((h) => (h.hook.headers as Record<string, unknown> | undefined)?.Authorization);
  if (problem) problems.push(problem);
  else if (!token || headers.some((v) => v !== `Bearer ${token}`))
    problems.push(
      "the token in the settings is not the daemon's (rotated or lost): Claude Code gets 401 and the events are lost",
    );
  for (const file of new Set(http.map((h) => h.file))) {
    try {
      const mode = statSync(file).mode & 0o777;
      if ((mode & 0o077) !== 0)
        problems.push(
          `${file} holds hookd's token and others can read it (mode ${mode.toString(8)}): chmod 600 it`,
        );
    } catch {}
  }
  return problems;
}

/**
 * The native fast clients the settings run, probed as install probes before it wires one (its
 * `--hookd-client-version`): a binary that does not run here (another system or architecture, not
 * executable) fails every event it is given before hookd runs; one of a version this hookd's daemon does
 * not serve is denied and takes the Node path each time. A client that is missing, or not an absolute
 * path, is the `<agent>-hooks` check's (a broken hookd command).
 */
function nativeClientProblems(wired: readonly WiredHook[]): { broken: boolean; text: string }[] {
  const paths = new Set<string>();
  for (const w of wired)
    if (fastClientOfHook(w.hook) === 'native') {
      const client = hookdProgramWords(w.hook.command as string)[0];
      if (client && isAbsolute(client) && existsSync(client)) paths.add(client);
    }
  const range = { protocol: FAST_PROTOCOL, ...FAST_CLIENT_VERSIONS };
  return [...paths].flatMap((path) => {
    const problem = nativeClientProblem(path, range);
    if (!problem) return [];
    const { broken } = problem;
    const effect = broken
      ? 'the agent gets an error for every event wired to it, and hookd does not run (no command, no guard)'
      : 'the daemon denies it, and every event takes the Node path (it works, without the speed)';
    return [{ broken, text: `native fast client: ${problem.text}: ${effect}` }];
  });
}

/** Notes about what the paths in use cost or mean (not problems). */
function pathNotes(wired: readonly WiredHook[], config: HookdConfig | undefined, env: Env): string[] {
  const notes: string[] = [];
  const clients = [...new Set(wired.map((w) => fastClientOfHook(w.hook)).filter((c) => c !== undefined))];
  if (clients.length > 0)
    notes.push(
      `fast client: ${clients
        .map((c) =>
          c === 'native'
            ? 'native (dist/hookd-client: no shell, ~1 ms of its own)'
            : 'bash (bin/hookd-client.bash: a bash start per event; hookd install wires the native one where it was built)',
        )
        .join(' and ')}`,
    );
  if (wired.some((w) => w.transport === 'fast') && config && !config.daemon.fastListener)
    notes.push(
      'daemon.fastListener is off: the fast client takes the Node path for every event (it works, without the speed)',
    );
  if (wired.some((w) => w.transport === 'http')) {
    const service = existsSync(serviceFilePath(servicePlatform(), env));
    const files = [...new Set(wired.filter((w) => w.transport === 'http').map((w) => w.file))];
    notes.push(
      `http (${HTTP_HOOK_PATH}): Claude Code posts observe-only events to the daemon (~2 ms, no process) with hookd's token, written as is in ${files.join(', ')} (which must stay 0600); while the daemon is down they are lost, not spooled${service ? '' : ', and the daemon does not run as a service (hookd daemon install-service)'}`,
    );
  }
  return notes;
}

/**
 * Does the agent's wiring match what the config needs? Missing events (or a matcher that leaves out a
 * tool the config's hooks need) are a warning with the install command that fixes them; events wired
 * but not needed only cost time (said, not warned). Also says which path each event takes and why.
 */
export function checkWiring(
  agent: Agent,
  states: readonly SettingsFileState[],
  config: HookdConfig | undefined,
  env: Env,
): CheckResult {
  const id = `${agent}-wiring`;
  const title = `${agentName(agent)} wiring matches the config`;
  const wired = states.flatMap(wiredHooksOf);
  if (wired.length === 0) return result(id, title, 'skip', `hookd is not wired into ${agentName(agent)}`);
  if (!config) return result(id, title, 'skip', 'no valid config to compare with');
  const paths = eventPaths(agent, states, config);
  const fix = fixCommand(agent, paths);
  const missing = paths.filter(
    (p) =>
      p.reasons.length > 0 &&
      (p.path === 'not wired' || !matcherCovers(p.matcher ?? '', p.neededMatcher ?? '')),
  );
  const extra = paths.filter((p) => p.reasons.length === 0 && p.path !== 'not wired');
  const problems: string[] = [];
  if (missing.length > 0)
    problems.push(
      `the config needs events the agent does not send hookd: ${missing
        .map((p) =>
          p.path === 'not wired'
            ? p.event
            : `${p.event} (matcher ${JSON.stringify(p.matcher)} leaves out ${p.neededMatcher || 'some tools'})`,
        )
        .join(', ')}`,
    );
  for (const p of paths.filter((p) => p.path === 'http' && p.commands))
    problems.push(`${p.event} runs commands but comes over http: their decisions cannot reach the agent`);
  if (paths.some((p) => p.event === 'SessionStart' && p.path === 'http'))
    problems.push('SessionStart over http: Claude Code does not call SessionStart http hooks');
  problems.push(
    ...httpProblems(
      wired.filter((w) => w.transport === 'http'),
      config,
      env,
    ),
  );
  const native = nativeClientProblems(wired);
  const otherProblems = problems.length > 0;
  problems.push(...native.map((n) => n.text));
  const lines = [
    ...problems,
    ...paths.map(formatEventPath),
    ...(extra.length > 0
      ? [
          `wired but not needed: ${extra.map((p) => p.event).join(', ')} (each costs a hookd run per event; \`${fix}\` removes them)`,
        ]
      : []),
    ...pathNotes(wired, config, env),
  ];
  if (problems.length > 0) {
    // Re-wiring the fast transport probes the native client again and wires the bash one if it fails;
    // it also wires what the config needs, unless the wiring's own fix names another transport.
    const nativeFix = `hookd install --agent ${agent} --transport fast`;
    const fixes =
      native.length === 0
        ? [fix]
        : otherProblems && fix.includes('--transport')
          ? [fix, nativeFix]
          : [nativeFix];
    const status = native.some((n) => n.broken) ? 'fail' : 'warn';
    return result(id, title, status, lines.join('\n'), `run \`${fixes.join('` then `')}\``);
  }
  return result(id, title, 'ok', lines.join('\n'));
}
