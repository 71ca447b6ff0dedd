import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { appendFileSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { startFakeResponses, type CodexStep } from './fake-responses.js';

/**
 * The part of a Codex run that happens inside the isolation (a fresh network and PID namespace when
 * run-codex.ts can make one): the fake model on this namespace's loopback, CODEX_HOME/config.toml
 * pointing at it, the hooks, their trust, then `codex exec` to its end. Bundled by run-codex.ts and
 * started as `node inner.cjs <config.json>`; it reports through files in `outDir`, never stdout.
 */
export interface CodexInnerConfig {
  bin: string;
  outDir: string;
  /** CODEX_HOME (config.toml, hooks.json, sessions/). */
  codexHome: string;
  work: string;
  script: CodexStep[];
  prompt: string;
  /** Arguments of `codex exec` before the prompt. */
  args: string[];
  env: Record<string, string>;
  /** The content of CODEX_HOME/hooks.json, or none. */
  hooks?: unknown;
  /** TOML appended to config.toml (after the provider; e.g. a sandbox_mode line must come first). */
  configHead: string;
  /** TOML appended at the end of config.toml (e.g. `[[hooks.<Event>]]` tables). */
  configTail?: string;
  /** 'persisted': trust every hook the way Codex's /hooks screen does, before the run. */
  trust: 'persisted' | 'none';
  /** A unix socket to listen on beside the agent (for a hook to try to reach). */
  socket?: string;
  deadlineMs: number;
  netns: boolean;
}

export interface CodexInnerResult {
  code: number | null;
  signal: string | null;
  timedOut: boolean;
  /** What Codex's `hooks/list` said before trust was written (persisted trust only). */
  hooksList?: unknown;
  /** Connections the socket beside the agent accepted. */
  socketConnections: number;
}

const config = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as CodexInnerConfig;
const out = (name: string) => join(config.outDir, name);
const result: CodexInnerResult = { code: null, signal: null, timedOut: false, socketConnections: 0 };

function configToml(baseUrl: string): string {
  return [
    config.configHead,
    'model = "gpt-5.5"',
    'model_provider = "fake"',
    'check_for_update_on_startup = false',
    '',
    '[model_providers.fake]',
    'name = "offline fake"',
    `base_url = "${baseUrl}"`,
    'env_key = "FAKE_OPENAI_API_KEY"',
    'wire_api = "responses"',
    'request_max_retries = 0',
    'stream_max_retries = 0',
    '',
    // Without these Codex syncs plugins and apps from github.com and chatgpt.com at startup.
    '[features]',
    'plugins = false',
    'remote_plugin = false',
    'apps = false',
    '',
    '[analytics]',
    'enabled = false',
    '',
    '[feedback]',
    'enabled = false',
    '',
    config.configTail ?? '',
  ].join('\n');
}

interface ListedHook {
  key: string;
  currentHash: string;
  trustStatus?: string;
  isManaged?: boolean;
}

/**
 * Asks `codex app-server` (JSON-RPC over stdio) for the hooks it found (`hooks/list`) and writes
 * `[hooks.state."<key>"] trusted_hash = "<currentHash>"` for each untrusted one: what a user does by
 * reviewing and trusting them in Codex's /hooks screen.
 */
async function trustHooks(env: Record<string, string>, deadline: number): Promise<void> {
  const server = spawn(config.bin, ['app-server'], {
    cwd: config.work,
    env,
    stdio: ['pipe', 'pipe', openSync(out('app-server.stderr'), 'a')],
  });
  const send = (message: unknown) => server.stdin!.write(`${JSON.stringify(message)}\n`);
  const listed = await new Promise<unknown>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error('codex app-server: no hooks/list answer')),
      deadline - Date.now(),
    );
    let buffer = '';
    server.stdout!.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        let message: { id?: number; result?: unknown; error?: unknown };
        try {
          message = JSON.parse(line) as typeof message;
        } catch {
          continue;
        }
        if (message.id === 1) {
          send({ jsonrpc: '2.0', method: 'initialized' });
          send({ jsonrpc: '2.0', id: 2, method: 'hooks/list', params: { cwds: [config.work] } });
        } else if (message.id === 2) {
          clearTimeout(timer);
          if (message.error) reject(new Error(`hooks/list: ${JSON.stringify(message.error)}`));
          else resolve(message.result);
        }
      }
    });
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { clientInfo: { name: 'hookd-test', title: 'hookd test', version: '0' } },
    });
  }).finally(() => server.kill('SIGKILL'));
  result.hooksList = listed;
  const data = (listed as { data?: { hooks?: ListedHook[] }[] }).data ?? [];
  const lines = data
    .flatMap((entry) => entry.hooks ?? [])
    .filter((h) => !h.isManaged && h.trustStatus !== 'trusted')
    .map(
      (h) => `\n[hooks.state.${JSON.stringify(h.key)}]\ntrusted_hash = ${JSON.stringify(h.currentHash)}\n`,
    );
  appendFileSync(join(config.codexHome, 'config.toml'), lines.join(''));
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.on('exit', (code, signal) => {
      result.code = code;
      result.signal = signal;
      resolve();
    });
  });
}

async function main(): Promise<void> {
  if (config.netns) spawnSync('ip', ['link', 'set', 'lo', 'up'], { stdio: 'ignore' });
  const deadline = Date.now() + config.deadlineMs;
  const model = await startFakeResponses({ script: config.script, logFile: out('model.jsonl') });
  let socket: Server | undefined;
  if (config.socket) {
    socket = createServer((c) => {
      result.socketConnections += 1;
      c.destroy();
    });
    await new Promise<void>((resolve) => socket!.listen(config.socket, resolve));
  }
  writeFileSync(join(config.codexHome, 'config.toml'), configToml(model.baseUrl));
  if (config.hooks !== undefined)
    writeFileSync(join(config.codexHome, 'hooks.json'), JSON.stringify(config.hooks));
  const env = { ...config.env, CODEX_HOME: config.codexHome, FAKE_OPENAI_API_KEY: 'sk-offline-fake' };
  if (config.trust === 'persisted') await trustHooks(env, deadline);
  const child = spawn(config.bin, ['exec', ...config.args, config.prompt], {
    cwd: config.work,
    env,
    stdio: ['ignore', openSync(out('agent.stdout'), 'a'), openSync(out('agent.stderr'), 'a')],
  });
  const done = exited(child);
  const timer = setTimeout(
    () => {
      result.timedOut = true;
      child.kill('SIGKILL');
    },
    Math.max(0, deadline - Date.now()),
  );
  await done;
  clearTimeout(timer);
  await model.close();
  if (socket) await new Promise<void>((resolve) => socket!.close(() => resolve()));
  writeFileSync(out('result.json'), JSON.stringify(result));
}

void main().then(
  () => process.exit(0),
  (error: unknown) => {
    writeFileSync(out('inner-error.txt'), String((error as Error).stack ?? error));
    process.exit(70);
  },
);
