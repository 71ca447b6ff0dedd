import { existsSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import type { HookdConfig } from '../../../config/schemas/schema.js';
import { FAST_CLIENT_VERSIONS, FAST_PROTOCOL } from '../../../link/wire.js';
import type { Agent } from '../../../install/agents.js';
import { fastClientOfHook, nativeClientProblem } from '../../../install/transport.js';
import { hookdProgramWords } from './hookd-program.js';
import { agentName, type SettingsFileState } from '../agent/agent-settings.js';
import {
  eventPaths,
  fixCommand,
  formatEventPath,
  matcherCovers,
  wiredHooksOf,
  type WiredHook,
} from '../agent/event-paths.js';
import { result, type CheckResult } from '../../types.js';

/**
 * Entries older hookd versions wrote that no longer reach the daemon safely: the bash fast client (it
 * now runs the Node path: safe, without the speed) and Claude Code's http hooks (no longer served: those
 * events are lost). `hookd install` replaces both.
 */
function retiredProblems(wired: readonly WiredHook[]): string[] {
  const problems: string[] = [];
  const files = (which: (w: WiredHook) => boolean) => [...new Set(wired.filter(which).map((w) => w.file))];
  const http = files((w) => w.transport === 'http');
  if (http.length > 0)
    problems.push(
      `http hooks in ${http.join(', ')}: hookd no longer serves them (a loopback port cannot prove to Claude Code that hookd is behind it; another local user could take it), so those events never reach hookd`,
    );
  const bash = files((w) => fastClientOfHook(w.hook) === 'bash');
  if (bash.length > 0)
    problems.push(
      `the retired bash fast client in ${bash.join(', ')}: it runs the Node path now (safe, about 80 ms an event); the native client is faster`,
    );
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
function pathNotes(wired: readonly WiredHook[], config: HookdConfig | undefined): string[] {
  const notes: string[] = [];
  if (wired.some((w) => fastClientOfHook(w.hook) === 'native'))
    notes.push('fast client: native (dist/hookd-client: no shell, ~1 ms of its own)');
  if (wired.some((w) => w.transport === 'fast') && config && !config.daemon.fastListener)
    notes.push(
      'daemon.fastListener is off: the fast client takes the Node path for every event (it works, without the speed)',
    );
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
): CheckResult {
  const id = `${agent}-wiring`;
  const title = `${agentName(agent)} wiring matches the config`;
  const all = wiredHooksOf(states);
  const wired = all.filter((w) => !w.shadowedBy);
  if (all.length === 0) return result(id, title, 'skip', `hookd is not wired into ${agentName(agent)}`);
  if (!config) return result(id, title, 'skip', 'no valid config to compare with');
  const paths = eventPaths(agent, states, config);
  const fix = fixCommand(agent, paths, states);
  const missing = paths.filter(
    (p) =>
      p.reasons.length > 0 &&
      (p.path === 'not wired' || !matcherCovers(p.matcher ?? '', p.neededMatcher ?? '')),
  );
  const idle = paths.filter((p) => p.reasons.length === 0 && p.path === 'node');
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
  problems.push(...retiredProblems(wired));
  const native = nativeClientProblems(wired);
  const otherProblems = problems.length > 0;
  problems.push(...native.map((n) => n.text));
  const lines = [
    ...problems,
    ...paths.map(formatEventPath),
    // Wired events the config has nothing for today cost a Node start each on the Node path; the fast
    // client answers them in about a millisecond, so only the Node path is worth a word.
    ...(idle.length > 0
      ? [
          `through the Node path, events with nothing in the config today still start Node (about 80 ms each): ${idle.map((p) => p.event).join(', ')}; \`hookd install --events ...\` narrows the wiring, and a guard added later on an event left out is then not run`,
        ]
      : []),
    ...pathNotes(wired, config),
  ];
  if (problems.length > 0) {
    // Re-wiring the fast transport probes the native client again and wires the Node path if it fails;
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
