import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { ADAPTERS } from '../../../agents/adapters/registry.js';
import type { HookTrustStatus } from '../../../agents/types.js';
import type { Agent } from '../../../install/agents.js';
import { hookdHooksAt } from '../../../install/hookd-layers.js';
import type { Env } from '../../../paths.js';
import { isObject } from '../../../util/json-values.js';
import { readRegularFile, RefusedFileError } from '../../../util/private-fs.js';
import { result, type CheckResult } from '../../types.js';
import { agentName, type SettingsFileState } from './agent-settings.js';

/** The most of the trust file doctor reads: a config.toml is a few KiB. */
const MAX_TRUST_FILE_BYTES = 4 * 1024 * 1024;

/** The trust file's text: '' when absent; bounded, a regular file only (doctor never waits on a FIFO). */
function readTrustFile(file: string): { text: string } | { problem: string } {
  try {
    return { text: readRegularFile(file, MAX_TRUST_FILE_BYTES).toString('utf8') };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { text: '' };
    if (error instanceof RefusedFileError) return { problem: error.message };
    return { problem: `${file} cannot be read (${code ?? (error as Error).message})` };
  }
}

function realFile(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return file;
  }
}

/** `hooks.PreToolUse[0].hooks[1]` -> 0, 1 */
function placeOf(path: string): { group: number; handler: number } | undefined {
  const m = /\[(\d+)\]\.hooks\[(\d+)\]$/.exec(path);
  return m ? { group: Number(m[1]), handler: Number(m[2]) } : undefined;
}

const WHAT: Record<Exclude<HookTrustStatus, 'trusted'>, string> = {
  untrusted: 'wired but not trusted',
  modified: 'changed since trusted',
  disabled: 'switched off in its hooks screen',
};

/**
 * For an agent that runs only the hooks its user trusted (Codex CLI): are hookd's entries trusted, as
 * the agent records it? Read from the agent's own file, no process started. hookd never writes that
 * trust itself: the fix is the agent's own review screen.
 */
export function checkHookTrust(
  agent: Agent,
  states: readonly SettingsFileState[],
  env: Env,
): CheckResult | undefined {
  const rules = ADAPTERS[agent].doctor.hookTrust;
  if (!rules) return undefined;
  const id = `${agent}-trust`;
  const name = agentName(agent);
  const title = `${name} trusts hookd's hooks`;
  const hooks = hookdHooksAt(states).filter((h) => !h.shadowedBy && isObject(h.hook));
  const file = rules.file(env, env.HOME || homedir());
  const read = readTrustFile(file);
  if ('problem' in read)
    if (hooks.length === 0) return result(id, title, 'skip', `hookd is not wired into ${name}`);
    else
      return result(
        id,
        title,
        'warn',
        `${read.problem}: whether ${name} runs hookd's hooks cannot be told`,
        `fix ${file}`,
      );
  if (hooks.length === 0) return result(id, title, 'skip', `hookd is not wired into ${name}`);
  let judge: ReturnType<typeof rules.read>;
  try {
    judge = rules.read(read.text);
  } catch (error) {
    const why = ((error as Error).message ?? String(error)).split('\n')[0]!.slice(0, 200);
    return result(
      id,
      title,
      'warn',
      `${file} cannot be read (${why}): whether ${name} runs hookd's hooks cannot be told`,
      `fix ${file} by hand (${name} cannot read it either)`,
    );
  }
  const byStatus = new Map<HookTrustStatus, string[]>();
  for (const h of hooks) {
    const place = placeOf(h.path);
    if (!place) continue;
    const status = judge({
      file: realFile(h.file),
      event: h.event,
      ...place,
      entry: h.entry,
      hook: h.hook as Record<string, unknown>,
    });
    byStatus.set(status, [...(byStatus.get(status) ?? []), h.event]);
  }
  const events = (list: string[]) => [...new Set(list)].join(', ');
  const trusted = byStatus.get('trusted') ?? [];
  const problems = (['modified', 'untrusted', 'disabled'] as const).filter((s) => byStatus.has(s));
  if (problems.length === 0)
    return result(
      id,
      title,
      'ok',
      `trusted: ${trusted.length} hookd hook${trusted.length === 1 ? '' : 's'} (${events(trusted)}), as recorded in ${file}`,
    );
  const lines = problems.map(
    (s) =>
      `${WHAT[s]}: ${events(byStatus.get(s)!)}; ${name} skips ${s === 'disabled' ? 'them' : 'them without a word'}`,
  );
  if (trusted.length > 0) lines.push(`trusted: ${events(trusted)}`);
  lines.push(`(trust is recorded in ${file}; hookd never writes it for you)`);
  return result(id, title, 'warn', lines.join('\n'), `${rules.steps}; then run \`hookd doctor\` again`);
}
