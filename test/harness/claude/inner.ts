import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { appendFileSync, existsSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startFakeModel, type ModelStep } from './fake-model.js';

/**
 * The part of a Claude Code run that happens inside the isolation (a fresh network and PID namespace
 * when run-claude.ts can make one): the fake model on this namespace's loopback, then the real binary in
 * the chosen mode, driven to the end, then the fake is closed. Bundled by run-claude.ts and started as
 * `node inner.cjs <config.json>`; it reports through files in `outDir`, never through stdout.
 */
export interface InnerConfig {
  bin: string;
  mode: 'print' | 'stream';
  outDir: string;
  work: string;
  script: ModelStep[];
  prompt: string;
  /** Stream mode: user messages sent after each previous turn's result (e.g. "/compact"). */
  followups: string[];
  args: string[];
  env: Record<string, string>;
  /**
   * Stream mode: answer permission prompts (`--permission-prompt-tool stdio`) only once `file` contains
   * `contains` (e.g. the Notification hook has run), so Claude Code sees the prompt go unanswered.
   * `interrupt`: the answer is an `interrupt` control request, what Esc at the prompt does.
   */
  permission?: { behavior: 'allow' | 'deny' | 'interrupt'; when: { file: string; contains: string } };
  deadlineMs: number;
  netns: boolean;
  /**
   * A process to run beside claude in the same namespaces (e.g. a hookd daemon whose loopback listener
   * claude's http hooks must reach): started first, ready once `readyFile` exists, stopped with SIGTERM
   * (and waited for) after claude exits.
   */
  sidecar?: { argv: string[]; env: Record<string, string>; readyFile: string };
}

export interface InnerResult {
  code: number | null;
  signal: string | null;
  timedOut: boolean;
  /** Stream mode: each turn's `result` message subtype, in order. */
  turns: string[];
  /** Stream mode: permission requests, and whether the condition was met before the answer. */
  permissions: { tool: string; conditionMet: boolean }[];
}

const config = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as InnerConfig;
const out = (name: string) => join(config.outDir, name);
const result: InnerResult = { code: null, signal: null, timedOut: false, turns: [], permissions: [] };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(check: () => boolean, deadline: number): Promise<boolean> {
  while (Date.now() < deadline) {
    if (check()) return true;
    await sleep(50);
  }
  return check();
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.on('exit', (code, signal) => {
      result.code = code;
      result.signal = signal;
      resolve();
    });
  });
}

async function drive(child: ChildProcess, deadline: number): Promise<void> {
  const log = out('stream.jsonl');
  const send = (message: unknown) => {
    appendFileSync(log, `>> ${JSON.stringify(message)}\n`);
    child.stdin!.write(`${JSON.stringify(message)}\n`);
  };
  let onResult: ((subtype: string) => void) | undefined;
  let buffer = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (line.trim() === '') continue;
      appendFileSync(log, `<< ${line}\n`);
      let message: {
        type?: string;
        subtype?: string;
        request_id?: string;
        request?: Record<string, unknown>;
      };
      try {
        message = JSON.parse(line) as typeof message;
      } catch {
        continue;
      }
      if (message.type === 'result') onResult?.(message.subtype ?? 'result');
      else if (message.type === 'control_request') void answerControl(message, send, deadline);
    }
  });
  const turn = (text: string) =>
    new Promise<string>((resolve) => {
      const timer = setTimeout(() => resolve('timeout'), Math.max(0, deadline - Date.now()));
      onResult = (subtype) => {
        clearTimeout(timer);
        resolve(subtype);
      };
      send({
        type: 'user',
        message: { role: 'user', content: text },
        parent_tool_use_id: null,
        session_id: '',
      });
    });
  for (const text of [config.prompt, ...config.followups]) {
    const subtype = await turn(text);
    result.turns.push(subtype);
    if (subtype === 'timeout') break;
  }
  child.stdin!.end();
}

async function answerControl(
  message: { request_id?: string; request?: Record<string, unknown> },
  send: (m: unknown) => void,
  deadline: number,
): Promise<void> {
  const request = message.request ?? {};
  if (request.subtype !== 'can_use_tool' || !config.permission) {
    send({
      type: 'control_response',
      response: { subtype: 'error', request_id: message.request_id, error: 'not handled by the test driver' },
    });
    return;
  }
  const { file, contains } = config.permission.when;
  const conditionMet = await until(
    () => existsSync(file) && readFileSync(file, 'utf8').includes(contains),
    deadline,
  );
  result.permissions.push({ tool: String(request.tool_name), conditionMet });
  if (config.permission.behavior === 'interrupt') {
    send({
      type: 'control_request',
      request_id: `interrupt-${String(message.request_id)}`,
      request: { subtype: 'interrupt' },
    });
    return;
  }
  const response =
    config.permission.behavior === 'allow'
      ? { behavior: 'allow', updatedInput: request.input }
      : { behavior: 'deny', message: 'denied by the test driver' };
  send({
    type: 'control_response',
    response: { subtype: 'success', request_id: message.request_id, response },
  });
}

async function startSidecar(
  spec: NonNullable<InnerConfig['sidecar']>,
  deadline: number,
): Promise<ChildProcess> {
  const child = spawn(spec.argv[0]!, spec.argv.slice(1), {
    env: spec.env,
    stdio: ['ignore', 'ignore', openSync(out('sidecar.stderr'), 'a')],
  });
  while (!existsSync(spec.readyFile)) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error('the sidecar did not get ready');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return child;
}

async function main(): Promise<void> {
  if (config.netns) spawnSync('ip', ['link', 'set', 'lo', 'up'], { stdio: 'ignore' });
  const model = await startFakeModel({
    script: config.script,
    logFile: out('model.jsonl'),
    workDir: config.work,
  });
  const deadline = Date.now() + config.deadlineMs;
  const sidecar = config.sidecar ? await startSidecar(config.sidecar, deadline) : undefined;
  const env = { ...config.env, ANTHROPIC_BASE_URL: model.url };
  const stderr = openSync(out('agent.stderr'), 'a');
  let child: ChildProcess;
  if (config.mode === 'print') {
    const stdout = openSync(out('agent.stdout'), 'a');
    child = spawn(config.bin, ['-p', ...config.args, config.prompt], {
      cwd: config.work,
      env,
      stdio: ['ignore', stdout, stderr],
    });
  } else {
    const args = ['-p', '--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose'];
    if (config.permission) args.push('--permission-prompt-tool', 'stdio');
    child = spawn(config.bin, [...args, ...config.args], {
      cwd: config.work,
      env,
      stdio: ['pipe', 'pipe', stderr],
    });
  }
  const done = exited(child);
  const timer = setTimeout(
    () => {
      result.timedOut = true;
      child.kill('SIGKILL');
    },
    Math.max(0, deadline - Date.now()),
  );
  if (config.mode === 'stream') await drive(child, deadline);
  await done;
  clearTimeout(timer);
  if (sidecar) {
    const gone = new Promise((resolve) => sidecar.once('exit', resolve));
    if (sidecar.exitCode === null && sidecar.signalCode === null) {
      sidecar.kill('SIGTERM');
      await gone;
    }
  }
  await model.close();
  writeFileSync(out('result.json'), JSON.stringify(result));
}

void main().then(
  () => process.exit(0),
  (error: unknown) => {
    writeFileSync(out('inner-error.txt'), String((error as Error).stack ?? error));
    process.exit(70);
  },
);
