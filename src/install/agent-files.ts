import { readdirSync } from 'node:fs';
import { ADAPTERS } from '../agents/adapters/registry.js';
import type { HooksFileKind, SettingsLayer as Layer } from '../agents/types.js';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Env } from '../paths.js';
import type { Agent } from './agents.js';

/**
 * Where an agent's hooks come from (src/agents/types.ts). Droid reads a user and a project level; Claude
 * Code adds the project's local file and the machine's managed settings. hookd writes only user, project
 * and local. The kinds of file: a settings file (its `hooks` key) and Droid's `hooks.json` (the hooks
 * object itself, `{"PreToolUse": [...]}`).
 */
export type { HooksFileKind, SettingsLayer as Layer } from '../agents/types.js';

/** One file that may hold the agent's hooks. */
export interface AgentHooksFile {
  agent: Agent;
  layer: Layer;
  kind: HooksFileKind;
  file: string;
}

export { claudeManagedDir } from '../agents/adapters/claude.js';
export { DROID_HOOKS_JSON, droidHooksJsonFile } from '../agents/adapters/droid.js';

export interface AgentFilesOptions {
  env?: Env;
  projectDir?: string;
  /** Claude Code's managed settings folder (default: the platform's). */
  claudeManagedDir?: string;
  /** The managed folder's drop-in files (`managed-settings.d/*.json`), sorted; read by the caller. */
  claudeManagedDropIns?: readonly string[];
}

/**
 * Every file whose hooks the agent reads, in the order the agent runs them (its adapter's
 * `settings.files`): Droid's user and project `.factory/settings.json` and `hooks.json`; Claude Code's
 * user, project, local and managed settings. A project folder that is the home folder adds nothing (the
 * agent reads those files once).
 */
export function agentHooksFiles(agent: Agent, options: AgentFilesOptions = {}): AgentHooksFile[] {
  const env = options.env ?? process.env;
  return ADAPTERS[agent].settings
    .files({
      home: env.HOME || homedir(),
      project: resolve(options.projectDir ?? process.cwd()),
      env,
      platform: process.platform,
      ...(options.claudeManagedDir !== undefined ? { managedDir: options.claudeManagedDir } : {}),
      ...(options.claudeManagedDropIns !== undefined ? { managedDropIns: options.claudeManagedDropIns } : {}),
    })
    .map((ref) => ({ agent, ...ref }));
}

/** The drop-in files of Claude Code's managed settings folder (`managed-settings.d/*.json`), in name order. */
export function claudeManagedDropIns(managedDir: string): string[] {
  const dir = join(managedDir, 'managed-settings.d');
  try {
    return readdirSync(dir)
      .filter((name) => name.endsWith('.json') && !name.startsWith('.'))
      .sort()
      .map((name) => join(dir, name));
  } catch {
    return [];
  }
}
