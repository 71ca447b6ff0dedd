import type { Agent } from './agents.js';
import { AGENT_PROFILES } from './agents.js';
import type { HooksFileRead } from './effective-hooks.js';
import { hookdInToml, type HookdInToml } from './hookd-layers.js';

/** How many tables a note names; the rest are counted (the --json result lists them all). */
const NAMED_TABLES = 20;

/** What `hookd uninstall` leaves wired: hookd's tables in a TOML config it does not edit, and notes. */
export interface LeftWired {
  stillWired: HookdInToml[];
  notes: string[];
}

/** 1st, 2nd, 3rd, 4th, ... 11th, 12th, 13th, ... 21st */
function ordinal(n: number): string {
  const teen = n % 100 >= 11 && n % 100 <= 13;
  const suffix = teen ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
}

/**
 * hookd's entries that uninstall cannot remove because hookd never edits their file (Codex CLI's
 * config.toml, read as the agent reads it): which tables still run hookd and how to remove them; and a
 * TOML config that cannot be read, which the user checks by hand.
 */
export function leftByUninstall(agent: Agent, reads: readonly HooksFileRead[]): LeftWired {
  const stillWired = hookdInToml(reads);
  const name = AGENT_PROFILES[agent].displayName;
  const notes = stillWired.map((left) => {
    const named = left.tables
      .slice(0, NAMED_TABLES)
      .map((t) => `[[hooks.${t.event}]] (the ${ordinal(t.index + 1)})`);
    const more = left.tables.length - named.length;
    const list = `${named.join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
    return `hookd is still wired in ${left.file}: ${name} runs its tables ${list}; hookd does not edit that file: delete those tables by hand (each with the \`[[hooks.<Event>.hooks]]\` tables under it), or ${name} keeps running hookd for them`;
  });
  for (const read of reads)
    if (read.kind === 'settings-toml' && read.readError)
      notes.push(
        `cannot read ${read.file} (${read.readError.message}): look for hookd's \`[[hooks.<Event>]]\` tables there by hand`,
      );
  return { stillWired, notes };
}
