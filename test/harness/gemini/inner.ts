import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { agentExit, runInnerMain, type AgentExit } from '../inner-run.js';
import { startFakeGemini, type GeminiStep } from './fake-gemini.js';

/**
 * The part of a Gemini CLI run inside the isolation (see run-gemini.ts): the fake Gemini API on this
 * namespace's loopback, ~/.gemini/settings.json with the hooks, then `gemini -p` to its end. Bundled and
 * started as `node inner.cjs <config.json>`; it reports through files in `outDir`.
 */
export interface GeminiInnerConfig {
  /** gemini's JS entry point (bundle/gemini.js), run with this node. */
  entry: string;
  outDir: string;
  home: string;
  work: string;
  script: GeminiStep[];
  prompt: string;
  hooks?: unknown;
  env: Record<string, string>;
  deadlineMs: number;
  netns: boolean;
}

export type GeminiInnerResult = AgentExit;

const config = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as GeminiInnerConfig;
const out = (name: string) => join(config.outDir, name);

async function main(): Promise<void> {
  if (config.netns) spawnSync('ip', ['link', 'set', 'lo', 'up'], { stdio: 'ignore' });
  const model = await startFakeGemini({ script: config.script, logFile: out('model.jsonl') });
  mkdirSync(join(config.home, '.gemini'), { recursive: true });
  const settingsFile = join(config.home, '.gemini', 'settings.json');
  // Hooks already in the file (written by `hookd install --agent gemini`) stay when none are given.
  const installed = existsSync(settingsFile)
    ? (JSON.parse(readFileSync(settingsFile, 'utf8')) as { hooks?: unknown }).hooks
    : undefined;
  const hooks = config.hooks ?? installed;
  const settings = {
    security: { auth: { selectedType: 'gemini-api-key' }, folderTrust: { enabled: false } },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
    ...(hooks !== undefined ? { hooks } : {}),
  };
  writeFileSync(settingsFile, JSON.stringify(settings));
  const env = {
    ...config.env,
    HOME: config.home,
    GEMINI_API_KEY: 'offline-fake-key',
    GOOGLE_GEMINI_BASE_URL: model.url,
    GEMINI_CLI_NO_RELAUNCH: 'true',
  };
  const args = [
    '-m',
    'gemini-2.5-flash',
    '-o',
    'json',
    '--approval-mode',
    'yolo',
    '--skip-trust',
    '-p',
    config.prompt,
  ];
  const child = spawn(process.execPath, [config.entry, ...args], {
    cwd: config.work,
    env,
    stdio: ['ignore', openSync(out('agent.stdout'), 'a'), openSync(out('agent.stderr'), 'a')],
  });
  const result: GeminiInnerResult = await agentExit(child, config.deadlineMs);
  await model.close();
  writeFileSync(out('result.json'), JSON.stringify(result));
}

runInnerMain(config.outDir, main);
