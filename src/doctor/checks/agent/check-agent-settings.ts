import { basename } from 'node:path';
import { CLAUDE_SKIPPED_LINE, type AgentHooksProblem } from '../../../install/agent-hooks.js';
import type { Layer } from '../../../install/agent-files.js';
import { AGENT_PROFILES, type Agent } from '../../../install/agents.js';
import {
  hooksAt,
  hooksJsonBeside,
  hooksSwitches,
  isAccepted,
  type HooksSwitch,
} from '../../../install/effective-hooks.js';
import { doubleWirings, hookdHooksAt, uninstallCommandFor } from '../../../install/hookd-layers.js';
import { isHookdHook } from '../../../install/transport.js';
import type { Env } from '../../../paths.js';
import { isObject } from '../../../util/json-values.js';
import { agentName, installCommandFor, runningHookdHooks, type SettingsFileState } from './agent-settings.js';
import { missingProgram, needsNodeOnPath } from '../hook/hookd-program.js';
import { result, type CheckResult } from '../../types.js';

function problemLine(file: string, p: AgentHooksProblem): string {
  const value = p.value !== undefined ? ` (value: ${JSON.stringify(p.value)?.slice(0, 80)})` : '';
  return `${file}: ${p.path}: ${p.severity}: ${p.message}${value}; fix: ${p.fix}`;
}

/**
 * A file of hooks in the settings layout named for hookd beside the agent's settings.json (Copilot CLI's
 * hooks/hookd.json): a check of its own, apart from that settings.json's.
 */
function isOwnHooksFile(state: SettingsFileState): boolean {
  return state.kind === 'settings' && !['settings.json', 'hooks.json'].includes(basename(state.file));
}

/**
 * The check id of one file: `droid-settings-user`, `droid-hooks-json-project`, `claude-settings-local`,
 * `copilot-hooks-file-user`.
 */
export function fileCheckId(state: SettingsFileState): string {
  if (isOwnHooksFile(state)) return `${state.agent}-hooks-file-${state.layer}`;
  if (state.kind === 'settings-toml') return `${state.agent}-config-toml-${state.layer}`;
  return state.kind === 'hooks-json'
    ? `${state.agent}-hooks-json-${state.layer}`
    : `${state.agent}-settings-${state.layer}`;
}

function fileTitle(state: SettingsFileState): string {
  const what =
    isOwnHooksFile(state) || state.kind === 'settings-toml'
      ? basename(state.file)
      : state.kind === 'hooks-json'
        ? 'hooks.json'
        : 'settings';
  return `${agentName(state.agent)} ${what} (${state.layer})`;
}

/** Is this file readable, and are its hooks ones the agent accepts? */
export function checkSettingsFile(state: SettingsFileState): CheckResult {
  const id = fileCheckId(state);
  const title = fileTitle(state);
  if (!state.exists) return result(id, title, 'skip', `${state.file} not present`);
  if (state.readError) {
    return result(
      id,
      title,
      'fail',
      `${state.readError.message}; ${agentName(state.agent)} cannot read it either, so none of its hooks run`,
      state.readError.hint ?? `fix ${state.file} by hand`,
    );
  }
  const problems = state.report?.problems ?? [];
  const errors = problems.filter((p) => p.severity === 'error');
  const lines = problems.map((p) => problemLine(state.file, p));
  if (errors.length > 0) {
    const head =
      state.agent === 'claude'
        ? `${state.file}: Claude Code skips this whole settings file (every hook and setting in it) for a PreToolUse/PermissionRequest entry it cannot load; headless, it says so only in its debug log ("${CLAUDE_SKIPPED_LINE}"):`
        : state.kind === 'hooks-json'
          ? `${state.file}: Droid rejects it and ignores the whole file ("Invalid hooks file, ignoring" in its log); the events it names run settings.json's hooks instead:`
          : `${state.file}: ${agentName(state.agent)} rejects its hooks and ignores every hook in this file:`;
    return result(
      id,
      title,
      'fail',
      [head, ...lines].join('\n'),
      `fix (or remove) the ${errors.length === 1 ? 'entry' : 'entries'} listed above in ${state.file}`,
    );
  }
  const hooks = state.hooks;
  if (state.kind === 'hooks-json' && isObject(hooks) && isObject(hooks.hooks)) {
    return result(
      id,
      title,
      'warn',
      `${state.file} holds {"hooks": {...}}, the settings.json layout; Droid reads the hooks object itself from hooks.json ({"PreToolUse": [...]}), ignores the "hooks" key, and runs none of it`,
      `move the events inside "hooks" to the top level of ${state.file}`,
    );
  }
  const events = isObject(hooks)
    ? Object.keys(hooks).filter((k) => AGENT_PROFILES[state.agent].knownEvents.includes(k)).length
    : 0;
  if (problems.length > 0) {
    return result(
      id,
      title,
      'warn',
      [`${state.file}: accepted, but some hooks do not work as written:`, ...lines].join('\n'),
      'fix the entries listed above',
    );
  }
  return result(
    id,
    title,
    'ok',
    `${state.file}: valid (${events} event${events === 1 ? '' : 's'} with hooks)`,
  );
}

/**
 * Droid: in each folder, the events the hooks.json names replace that folder's settings.json list. A
 * hookd entry left there never runs (install moves it); hooks of the user's own that are not in the
 * hooks.json list never run either (moving them is the user's to do).
 */
export function checkShadowing(states: readonly SettingsFileState[]): CheckResult {
  const id = 'droid-hooks-json-shadow';
  const title = 'Droid hooks.json and settings.json agree';
  const shadowed = hooksAt(states).filter((h) => h.shadowedBy);
  const jsonFiles = states.filter((s) => s.kind === 'hooks-json' && isAccepted(s));
  if (jsonFiles.length === 0) return result(id, title, 'skip', 'no hooks.json');
  if (shadowed.length === 0)
    return result(
      id,
      title,
      'ok',
      `no event of a settings.json is replaced by its hooks.json (${jsonFiles.map((s) => s.file).join(', ')})`,
    );
  const lines: string[] = [];
  const fixes: string[] = [];
  // hookd's own entries: install moves them into hooks.json.
  const hookd = shadowed.filter((h) => isHookdHook(h.hook));
  for (const layer of new Set(hookd.map((h) => h.layer))) {
    const mine = hookd.filter((h) => h.layer === layer);
    const events = [...new Set(mine.map((h) => h.event))];
    lines.push(
      `hookd's entries for ${events.join(', ')} in ${mine[0]!.file} never run: ${mine[0]!.shadowedBy} names ${events.length === 1 ? 'that event' : 'those events'}, and Droid runs its list instead`,
    );
    const layerStates = states.filter((s) => s.layer === layer);
    fixes.push(installCommandFor('droid', layerStates));
  }
  // The user's own: lost unless the same entry is in the hooks.json list.
  for (const h of shadowed.filter((x) => !isHookdHook(x.hook))) {
    const json = hooksJsonBeside(
      states,
      states.find((s) => s.file === h.file)!,
    );
    const list = isObject(json?.hooks) ? json.hooks[h.event] : undefined;
    const copied =
      Array.isArray(list) &&
      list.some(
        (e) =>
          isObject(e) &&
          (e.matcher ?? '') === (h.entry.matcher ?? '') &&
          Array.isArray(e.hooks) &&
          e.hooks.some((x) => JSON.stringify(x) === JSON.stringify(h.hook)),
      );
    if (copied) continue;
    const command = isObject(h.hook) && typeof h.hook.command === 'string' ? h.hook.command : '(hook)';
    lines.push(
      `${h.file}: ${h.path} (${command.slice(0, 80)}) never runs: ${h.shadowedBy} names ${h.event}, and Droid runs its list instead`,
    );
    fixes.push(
      `move ${h.path} into the ${h.event} list of ${h.shadowedBy} (or remove ${h.event} from that file)`,
    );
  }
  if (lines.length === 0)
    return result(
      id,
      title,
      'ok',
      `every hook of a settings.json event its hooks.json names is also in the hooks.json list (${jsonFiles.map((s) => s.file).join(', ')})`,
    );
  const commands = [...new Set(fixes.filter((f) => f.startsWith('hookd ')))];
  const steps = [...new Set(fixes.filter((f) => !f.startsWith('hookd ')))];
  const fix = [...commands.map((c) => `run \`${c}\``), ...steps].join('; ');
  return result(id, title, 'warn', lines.join('\n'), fix);
}

function switchFix(s: HooksSwitch, agent: Agent): string {
  if (s.layer === 'managed')
    return `only the administrator of ${s.file} can change it; until then hookd cannot run under ${agentName(agent)} here`;
  return `remove "${s.key}": true from ${s.file}${agent === 'droid' ? (s.file.endsWith('hooks.json') ? '' : ' (it is inside "hooks")') : ''}`;
}

/**
 * The settings that switch the agent's hooks off, hookd's with them: Droid's `hooksDisabled` (inside
 * the hooks object), Claude Code's `disableAllHooks` and its managed `allowManagedHooksOnly`.
 */
export function checkHooksSwitches(agent: Agent, states: readonly SettingsFileState[]): CheckResult {
  const id = `${agent}-hooks-switch`;
  const title = `${agentName(agent)} runs hooks`;
  const switches = hooksSwitches(agent, states);
  if (switches.length === 0) return result(id, title, 'ok', 'no setting switches hooks off');
  const hookdLayers = new Set<Layer>(hookdHooksAt(states).map((h) => h.layer));
  const lines = switches.map((s) => {
    const what =
      s.key === 'allowManagedHooksOnly'
        ? `${agentName(agent)} runs only the hooks of managed settings: those of your user, project and local settings, hookd's included, are not loaded`
        : `${agentName(agent)} runs no hooks at all, hookd's included`;
    return `"${s.key}": true in ${s.file} (${s.layer}): ${what}`;
  });
  const hits = switches.some((s) => s.off.some((l) => hookdLayers.has(l)));
  return result(
    id,
    title,
    hits ? 'fail' : 'warn',
    lines.join('\n'),
    switches.map((s) => switchFix(s, agent)).join('; '),
  );
}

/** A tool-name matcher on a tool event, as older installs wrote for tool-matched hooks (checked by check-wiring). */
function isToolMatcher(event: string, matcher: unknown): boolean {
  return (
    (event === 'PreToolUse' || event === 'PostToolUse') &&
    typeof matcher === 'string' &&
    /^[A-Za-z0-9_]+(\|[A-Za-z0-9_]+)*$/.test(matcher)
  );
}

function isCatchAll(matcher: unknown): boolean {
  return matcher === undefined || matcher === '' || matcher === '*';
}

/** The layers to take hookd out of so that one is left: keep the widest (managed, user, project, local). */
function layersToRemove(files: { file: string; layer: Layer }[]): { file: string; layer: Layer }[] {
  const order: Layer[] = ['managed', 'user', 'project', 'local'];
  const byFile = files.filter((f, i, all) => all.findIndex((g) => g.file === f.file) === i);
  const keep = [...byFile].sort((a, b) => order.indexOf(a.layer) - order.indexOf(b.layer))[0]!;
  // A Droid folder's settings.json and hooks.json are one level: uninstall takes both.
  return byFile.filter((f) => f.layer !== keep.layer && f.layer !== 'managed');
}

/**
 * Is hookd wired into this agent, through a hookd whose program exists, once per event? Looks at every
 * file of the agent together, as the agent merges them.
 */
export function checkAgentWiring(agent: Agent, states: readonly SettingsFileState[], env: Env): CheckResult {
  const id = `${agent}-hooks`;
  const title = `${agentName(agent)} runs hookd`;
  const install = `hookd install --agent ${agent}`;
  const hooks = runningHookdHooks(states);
  if (hooks.length === 0) {
    const rejected = states.filter((s) => s.exists && (s.readError || !s.report?.ok)).map((s) => s.file);
    const shadowed = hookdHooksAt(states).filter((h) => h.shadowedBy);
    const why =
      shadowed.length > 0
        ? `hookd's entries (${[...new Set(shadowed.map((h) => h.file))].join(', ')}) never run: the hooks.json beside them names their events`
        : rejected.length > 0
          ? `hookd's hooks, if any, are in a file ${agentName(agent)} rejects (${rejected.join(', ')})`
          : `no settings file wires hookd (${states.map((s) => s.file).join(', ')})`;
    // Droid is hookd's main agent: not wired there is worth a warning; Claude Code is optional.
    const status = agent === 'droid' || rejected.length > 0 || shadowed.length > 0 ? 'warn' : 'skip';
    return result(
      id,
      title,
      status,
      why,
      `run \`${shadowed.length > 0 ? installCommandFor(agent, states) : install}\``,
    );
  }
  // Which events should be wired is the config's business: check `<agent>-wiring` (check-wiring.ts).
  const wired = new Set(hooks.map((h) => h.event));
  const twice = doubleWirings(agent, states);
  const acrossFiles = twice.filter((d) => new Set(d.hooks.map((h) => h.file)).size > 1);
  const lines: string[] = [];
  const uninstalls: string[] = [];
  // hookd wired in two layers: the fix takes it out of all but the widest, so what else is wrong is
  // looked for in the layers that stay.
  let removed = new Set<Layer>();
  let byHand: string[] = [];
  if (acrossFiles.length > 0) {
    const files = acrossFiles
      .flatMap((d) => d.hooks)
      .filter((h, i, all) => all.findIndex((o) => o.file === h.file) === i);
    // hookd never edits a TOML config (Codex's config.toml): its hookd tables go by hand, and the
    // files hookd writes stay.
    const isToml = (file: string) => states.some((s) => s.file === file && s.kind === 'settings-toml');
    byHand = files.filter((f) => isToml(f.file)).map((f) => f.file);
    const written = files.filter((f) => !isToml(f.file));
    const remove = written.length > 1 ? layersToRemove(written) : [];
    removed = new Set(remove.map((f) => f.layer));
    lines.push(
      `hookd is wired in more than one place, and ${agentName(agent)} runs each, so every hookd command runs twice for ${acrossFiles.map((d) => d.event).join(', ')}:`,
      ...files.map((f) => `  ${f.file} (${f.layer})`),
    );
    for (const f of remove) {
      const command = uninstallCommandFor(agent, f.layer, f.file);
      if (command && !uninstalls.includes(command)) uninstalls.push(command);
    }
    const kept = files.find((f) => !removed.has(f.layer) && !byHand.includes(f.file));
    if (kept)
      lines.push(
        `  the fix keeps ${kept.file} (${kept.layer})${kept.layer === 'user' ? ', which runs hookd in every project' : ''}`,
      );
  }
  const staying = hooks.filter((h) => !removed.has(h.layer));
  const stayingStates = states.filter((s) => !removed.has(s.layer));
  const reinstall = installCommandFor(agent, stayingStates);
  const broken = new Map<string, string[]>();
  for (const hook of staying) {
    const problem = missingProgram(hook.command, env);
    if (problem) broken.set(problem, [...(broken.get(problem) ?? []), `${hook.file}: ${hook.path}`]);
  }
  for (const [problem, where] of broken) lines.push(`hookd command broken: ${problem} (${where.join(', ')})`);
  let needsInstall = false;
  const inOneFile = twice.filter((d) => !acrossFiles.includes(d));
  if (inOneFile.length > 0) {
    lines.push(`two different hookd commands run for: ${inOneFile.map((d) => d.event).join(', ')}`);
    needsInstall = true;
  }
  // A matcher hookd's own install chose (the config's tool matchers) is checked by `<agent>-wiring`.
  const limited = staying.filter((h) => !isCatchAll(h.matcher) && !isToolMatcher(h.event, h.matcher));
  for (const h of limited)
    lines.push(`${h.file}: ${h.path}: only runs for matcher ${JSON.stringify(h.matcher)}`);
  const pathBound = [...new Set(staying.map((h) => h.command).filter(needsNodeOnPath))];
  for (const command of pathBound)
    lines.push(
      `${command}: starts node through the agent's PATH (#!/usr/bin/env node); an agent started without node on its PATH skips every hook`,
    );
  needsInstall ||= limited.length > 0 || pathBound.length > 0;
  const first = uninstalls.map((c) => `\`${c}\``).join(' then ');
  if (broken.size > 0) {
    return result(
      id,
      title,
      'fail',
      lines.join('\n'),
      `${first ? `run ${first}, then ` : ''}run \`${reinstall}\` again from the hookd you want to use, with the node you want it to run on (it writes both absolute paths in place)`,
    );
  }
  if (lines.length > 0) {
    const commands = [...uninstalls, ...(needsInstall ? [reinstall] : [])];
    const steps = [
      ...byHand.map(
        (file) =>
          `delete hookd's \`[[hooks.<Event>]]\` tables (those whose command runs hookd) from ${file} by hand: hookd does not edit it, and \`${install}\` keeps hookd's entries in the other file`,
      ),
      ...(commands.length > 0 ? [`run \`${commands.join('` then `')}\``] : []),
    ];
    return result(id, title, 'warn', lines.join('\n'), steps.join('; then '));
  }
  const files = [...new Set(hooks.map((h) => `${h.file} (${h.layer})`))].join(', ');
  const programs = [...new Set(hooks.map((h) => h.command))].join(', ');
  return result(
    id,
    title,
    'ok',
    `${wired.size} event${wired.size === 1 ? '' : 's'} wired (${files}): ${programs}`,
  );
}
