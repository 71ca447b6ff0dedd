import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, openSync, readSync, closeSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { registryEnv } from './registry-env.js';

/**
 * The real agents the e2e tests drive, pinned. Their binaries come from the npm registry into a cache
 * outside the repo (never as dependencies: every user's `npm install` would download 600 MB), installed
 * once by the e2e setup step (`ensureAgent`) and found by the tests with `agentBinary`.
 */
export type AgentName = 'droid' | 'claude' | 'codex' | 'gemini' | 'copilot';

export interface AgentSpec {
  name: AgentName;
  /** The npm package holding the native binary for linux-x64. */
  pkg: string;
  version: string;
  /** The binary, relative to the install prefix. */
  bin: string;
  /** The "binary" is a JavaScript entry point that node runs (no native build). */
  js?: boolean;
}

export const AGENTS: Record<AgentName, AgentSpec> = {
  droid: {
    name: 'droid',
    pkg: '@factory/cli-linux-x64',
    version: '0.225.2',
    bin: 'node_modules/@factory/cli-linux-x64/bin/droid',
  },
  claude: {
    name: 'claude',
    pkg: '@anthropic-ai/claude-code-linux-x64',
    version: '2.1.330',
    bin: 'node_modules/@anthropic-ai/claude-code-linux-x64/claude',
  },
  codex: {
    name: 'codex',
    // The wrapper package; its optional dependency @openai/codex-linux-x64 holds the static binary.
    pkg: '@openai/codex',
    version: '0.171.0',
    bin: 'node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex',
  },
  gemini: {
    name: 'gemini',
    pkg: '@google/gemini-cli',
    version: '0.61.0',
    bin: 'node_modules/@google/gemini-cli/bundle/gemini.js',
    js: true,
  },
  copilot: {
    name: 'copilot',
    // The wrapper package; its optional dependency @github/copilot-linux-x64 holds the native binary.
    pkg: '@github/copilot',
    version: '1.0.102',
    bin: 'node_modules/@github/copilot-linux-x64/copilot',
  },
};

/** `$HOOKD_AGENTS_CACHE`, else `$XDG_CACHE_HOME/hookd-test-agents`, else `~/.cache/hookd-test-agents`. */
export function agentsCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.HOOKD_AGENTS_CACHE) return env.HOOKD_AGENTS_CACHE;
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'hookd-test-agents');
}

function prefixOf(spec: AgentSpec, env: NodeJS.ProcessEnv): string {
  return join(agentsCacheDir(env), `${spec.name}-${spec.version}`);
}

function isElfExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    const fd = openSync(path, 'r');
    try {
      const head = Buffer.alloc(4);
      readSync(fd, head, 0, 4, 0);
      return head.equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46]));
    } finally {
      closeSync(fd);
    }
  } catch {
    return false;
  }
}

/** Why this machine cannot run the pinned binaries at all, or undefined when it can. */
export function unsupportedPlatform(): string | undefined {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    return `the pinned agent binaries are linux-x64 only (this is ${process.platform}-${process.arch})`;
  }
  return undefined;
}

/** The installed binary of an agent, or undefined when it is not in the cache. */
export function agentBinary(name: AgentName, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const path = join(prefixOf(AGENTS[name], env), AGENTS[name].bin);
  if (AGENTS[name].js) return existsSync(path) ? path : undefined;
  return isElfExecutable(path) ? path : undefined;
}

export interface EnsureResult {
  agent: AgentName;
  version: string;
  bin?: string;
  /** Why the agent is not available (its tests do not run). */
  reason?: string;
}

/**
 * Installs an agent's pinned binary into the cache when missing (npm, from the registry), under a lock
 * so concurrent setups do not install twice. Never throws: a failure is a reason.
 */
export function ensureAgent(name: AgentName, env: NodeJS.ProcessEnv = process.env): EnsureResult {
  const spec = AGENTS[name];
  const base = { agent: name, version: spec.version };
  const unsupported = unsupportedPlatform();
  if (unsupported) return { ...base, reason: unsupported };
  const found = agentBinary(name, env);
  if (found) return { ...base, bin: found };
  const prefix = prefixOf(spec, env);
  try {
    mkdirSync(agentsCacheDir(env), { recursive: true, mode: 0o700 });
  } catch (error) {
    return { ...base, reason: `cannot create the agents cache: ${(error as Error).message}` };
  }
  const lock = `${prefix}.lock`;
  const deadline = Date.now() + 15 * 60_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (agentBinary(name, env)) return { ...base, bin: agentBinary(name, env)! };
      if (Date.now() > deadline) return { ...base, reason: `lock ${lock} held for 15 minutes` };
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500);
    }
  }
  try {
    mkdirSync(prefix, { recursive: true });
    const npm = spawnSync(
      'npm',
      ['install', '--prefix', prefix, '--no-audit', '--no-fund', '--no-save', `${spec.pkg}@${spec.version}`],
      { encoding: 'utf8', timeout: 600_000, env: { ...registryEnv(env), npm_config_loglevel: 'error' } },
    );
    const bin = agentBinary(name, env);
    if (bin) return { ...base, bin };
    const why = npm.error?.message ?? npmErrorLine(npm.stderr || '');
    return {
      ...base,
      reason: `npm install ${spec.pkg}@${spec.version} failed: ${why || `exit ${npm.status}`}`,
    };
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** The line of npm's error output that says what went wrong (not its stack, codes or log advice). */
function npmErrorLine(stderr: string): string {
  const lines = stderr
    .split('\n')
    .filter((l) => l.startsWith('npm error '))
    .map((l) => l.slice('npm error '.length));
  const said = lines.find(
    (l) => l.trim() && !/^(\s|code |syscall |errno |A complete log|If you are behind)/.test(l),
  );
  return (said ?? lines.find((l) => l.startsWith('code ')) ?? '').trim();
}
