import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { agentExit, runInnerMain, type AgentExit } from '../inner-run.js';
import { startFakeResponses, type CodexStep } from '../codex/fake-responses.js';

/**
 * The part of a Copilot CLI run inside the isolation (see run-copilot.ts): the fake Responses API on
 * this namespace's loopback, the hooks files asked for, then `copilot -p` to its end. Bundled and
 * started as `node inner.cjs <config.json>`; it reports through files in `outDir`.
 */
export interface CopilotInnerConfig {
  bin: string;
  outDir: string;
  home: string;
  work: string;
  script: CodexStep[];
  prompt: string;
  /** The model name Copilot asks the provider for (default gpt-5.5). */
  model?: string;
  args: string[];
  /** Files to write before the run, by absolute path (hooks files), as JSON. */
  files: Record<string, unknown>;
  env: Record<string, string>;
  deadlineMs: number;
  netns: boolean;
}

export type CopilotInnerResult = AgentExit;

const config = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as CopilotInnerConfig;
const out = (name: string) => join(config.outDir, name);

async function main(): Promise<void> {
  if (config.netns) spawnSync('ip', ['link', 'set', 'lo', 'up'], { stdio: 'ignore' });
  const model = await startFakeResponses({ script: config.script, logFile: out('model.jsonl') });
  for (const [file, content] of Object.entries(config.files)) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify(content, null, 2));
  }
  // Copilot's "bring your own key" mode: no GitHub sign-in, no network but the provider's URL.
  const env = {
    ...config.env,
    HOME: config.home,
    COPILOT_OFFLINE: 'true',
    COPILOT_PROVIDER_BASE_URL: model.baseUrl,
    COPILOT_PROVIDER_WIRE_API: 'responses',
    COPILOT_PROVIDER_API_KEY: 'offline-fake-key',
    COPILOT_MODEL: config.model ?? 'gpt-5.5',
    COPILOT_AUTO_UPDATE: 'false',
  };
  const child = spawn(config.bin, ['-p', config.prompt, ...config.args], {
    cwd: config.work,
    env,
    stdio: ['ignore', openSync(out('agent.stdout'), 'a'), openSync(out('agent.stderr'), 'a')],
  });
  const result: CopilotInnerResult = await agentExit(child, config.deadlineMs);
  await model.close();
  writeFileSync(out('result.json'), JSON.stringify(result));
}

runInnerMain(config.outDir, main);
