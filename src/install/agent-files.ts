import { readdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Env } from '../paths.js';
import type { Agent } from './agents.js';

/**
 * Where an agent's hooks come from. Droid reads a user and a project level; Claude Code adds the
 * project's local file and the machine's managed settings. hookd writes only user, project and local.
 */
export type Layer = 'user' | 'project' | 'local' | 'managed';

/**
 * The two kinds of file that hold hooks: a settings file (its `hooks` key) and Droid's `hooks.json`
 * (the hooks object itself, `{"PreToolUse": [...]}`).
 */
export type HooksFileKind = 'settings' | 'hooks-json';

/** One file that may hold the agent's hooks. */
export interface AgentHooksFile {
  agent: Agent;
  layer: Layer;
  kind: HooksFileKind;
  file: string;
}

/** The name of Droid's hooks file in a `.factory` folder. */
export const DROID_HOOKS_JSON = 'hooks.json';

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * The hooks file Droid reads in a `.factory` folder: `hooks.json`, or the older `hooks/hooks.json` when
 * `hooks.json` is not a file and that one is (Droid 0.225.2 `loadHooksFromHooksJson`; Droid moves the
 * older one aside the next time it saves hooks).
 */
export function droidHooksJsonFile(factoryDir: string): string {
  const current = join(factoryDir, DROID_HOOKS_JSON);
  const legacy = join(factoryDir, 'hooks', DROID_HOOKS_JSON);
  return !isFile(current) && isFile(legacy) ? legacy : current;
}

/** Where Claude Code looks for the machine's managed settings (its `managed-settings.json` folder). */
export function claudeManagedDir(platform: NodeJS.Platform = process.platform): string {
  return platform === 'darwin' ? '/Library/Application Support/ClaudeCode' : '/etc/claude-code';
}

export interface AgentFilesOptions {
  env?: Env;
  projectDir?: string;
  /** Claude Code's managed settings folder (default: the platform's). */
  claudeManagedDir?: string;
  /** The managed folder's drop-in files (`managed-settings.d/*.json`), sorted; read by the caller. */
  claudeManagedDropIns?: readonly string[];
}

/**
 * Every file whose hooks the agent reads, in the order the agent runs them: Droid's user and project
 * `.factory/settings.json` and `hooks.json`; Claude Code's user, project, local and managed settings.
 * A project folder that is the home folder adds nothing (the agent reads those files once).
 */
export function agentHooksFiles(agent: Agent, options: AgentFilesOptions = {}): AgentHooksFile[] {
  const env = options.env ?? process.env;
  const home = env.HOME || homedir();
  const project = resolve(options.projectDir ?? process.cwd());
  const sameAsHome = project === resolve(home);
  const at = (layer: Layer, kind: HooksFileKind, file: string): AgentHooksFile => ({
    agent,
    layer,
    kind,
    file,
  });
  if (agent === 'droid') {
    const levels: [Layer, string][] = [['user', join(home, '.factory')]];
    if (!sameAsHome) levels.push(['project', join(project, '.factory')]);
    return levels.flatMap(([layer, dir]) => [
      at(layer, 'settings', join(dir, 'settings.json')),
      at(layer, 'hooks-json', droidHooksJsonFile(dir)),
    ]);
  }
  if (agent === 'codex') {
    // Codex CLI 0.171.0 was observed reading $CODEX_HOME/hooks.json (`{"hooks": {...}}`) only.
    const codexHome = env.CODEX_HOME ? resolve(env.CODEX_HOME) : join(home, '.codex');
    return [at('user', 'settings', join(codexHome, 'hooks.json'))];
  }
  if (agent === 'gemini')
    return [
      at('user', 'settings', join(home, '.gemini', 'settings.json')),
      ...(sameAsHome ? [] : [at('project', 'settings', join(project, '.gemini', 'settings.json'))]),
    ];
  const managed = options.claudeManagedDir ?? claudeManagedDir();
  return [
    at('user', 'settings', join(home, '.claude', 'settings.json')),
    ...(sameAsHome
      ? []
      : [
          at('project', 'settings', join(project, '.claude', 'settings.json')),
          at('local', 'settings', join(project, '.claude', 'settings.local.json')),
        ]),
    at('managed', 'settings', join(managed, 'managed-settings.json')),
    ...(options.claudeManagedDropIns ?? []).map((file) => at('managed', 'settings', file)),
  ];
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
