import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Agent } from '../../../install/agents.js';
import {
  fastClientOf,
  fastClientStart,
  hookdInvocation,
  isNodeProgram,
} from '../../../install/hookd-command.js';
import { installCommandFor } from '../../../install/hookd-layers.js';
import type { Layer } from '../../../install/agent-files.js';
import { hookdLocation, realPath } from '../../../util/hookd-location.js';
import { agentName, type SettingsFileState } from '../agent/agent-settings.js';
import { wiredHooksOf } from '../agent/event-paths.js';
import { result, type CheckResult } from '../../types.js';

/**
 * The hookd.cjs a hookd command runs, or undefined for one that names no path (the portable project
 * form runs PATH's `hookd`): the program of a node command; for the native client its fallback's (the
 * HOOKD_CJS it is given, else the one beside it); for the retired bash client the package's.
 */
export function hookdProgramOf(command: string): string | undefined {
  const words = hookdInvocation(command) ?? [];
  const client = fastClientOf(words);
  if (client === 'native') {
    const at = fastClientStart(words);
    const named = words.slice(0, at).find((w) => w.startsWith('HOOKD_CJS='));
    const path = named ? named.slice('HOOKD_CJS='.length) : join(dirname(words[at]!), 'hookd.cjs');
    return path.startsWith('/') ? path : undefined;
  }
  if (client === 'bash') {
    const script = words.find((w) => basename(w) === 'hookd-client.bash')!;
    return script.startsWith('/') ? join(dirname(dirname(script)), 'dist', 'hookd.cjs') : undefined;
  }
  const program = words[words[0] !== undefined && isNodeProgram(words[0]) ? 1 : 0];
  return program?.startsWith('/') ? program : undefined;
}

/**
 * Entries that run another hookd than this one: one installed elsewhere before (an older install, a
 * clone, the unscoped package of older versions), still on disk, so nothing looks broken while the
 * agent runs old code. Compared with every symlink resolved. A missing one is the settings check's (a
 * broken command). Skipped when this process is not a hookd program (run from the sources).
 */
export function checkLocation(
  agent: Agent,
  states: readonly SettingsFileState[],
  program: string = hookdLocation().program,
): CheckResult {
  const id = `${agent}-location`;
  const title = `${agentName(agent)} entries run this hookd`;
  if (basename(program) !== 'hookd.cjs') return result(id, title, 'skip', 'not run as an installed hookd');
  const self = realPath(program);
  const elsewhere = new Map<string, { layer: Layer; roots: Set<string>; events: Set<string> }>();
  let named = 0;
  for (const wired of wiredHooksOf(states)) {
    const other = typeof wired.hook.command === 'string' ? hookdProgramOf(wired.hook.command) : undefined;
    if (other === undefined) continue;
    named++;
    const real = realPath(other);
    if (real === self || !existsSync(real)) continue;
    const seen = elsewhere.get(wired.file) ?? { layer: wired.layer, roots: new Set(), events: new Set() };
    seen.roots.add(dirname(dirname(real)));
    seen.events.add(wired.event);
    elsewhere.set(wired.file, seen);
  }
  if (named === 0) return result(id, title, 'skip', 'no entry names a hookd by path');
  if (elsewhere.size === 0) return result(id, title, 'ok', `every entry runs ${dirname(dirname(self))}`);
  const lines = [...elsewhere].map(
    ([file, seen]) =>
      `${file}: ${[...seen.events].join(', ')} run${seen.events.size === 1 ? 's' : ''} the hookd in ${[...seen.roots].join(', ')}, not this one (${dirname(dirname(self))})`,
  );
  const fixes = [...new Set([...elsewhere].map(([file, s]) => installCommandFor(agent, s.layer, file)))];
  const runnable = fixes.filter((f): f is string => f !== undefined);
  const fix = runnable.length ? `run \`${runnable.join('` and `')}\` to move them to this hookd` : undefined;
  const managed = fixes.length > runnable.length ? ' (managed settings: only their administrator can)' : '';
  return result(id, title, 'warn', lines.join('\n') + managed, fix);
}
