import { spawn } from 'node:child_process';
import { appendFileSync, existsSync } from 'node:fs';
import { exitWithin } from './reap.js';

/**
 * Drives `droid exec --input-format stream-jsonrpc --output-format stream-jsonrpc`, the protocol of
 * Factory's SDK: one JSON message per line each way. Unlike `droid exec "<prompt>"`, a session driven this
 * way fires all nine hook events: UserPromptSubmit for the prompt, Notification when Droid asks for a
 * permission (answered here), and PreCompact when the driver asks for a compaction after the turn.
 */
export interface RpcOptions {
  bin: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  prompt: string;
  model: string;
  /** Every message sent (`>>`) and received (`<<`), one per line. */
  transcriptFile: string;
  stdoutFile: string;
  stderrFile: string;
  /** The whole session's deadline: past it Droid's process group is killed and the result is 124. */
  deadlineMs: number;
  /** The answer to each permission request (default proceed_once; `cancel` denies). */
  permission?: string;
  /**
   * When each permission request is answered (default: at once). `gateFile`: once this file exists (a
   * test makes it when it has seen what it waits for: the answer comes late by a condition, not a clock);
   * `delayMs`: that long after the request. `interrupt`: the "answer" is `droid.interrupt_session`, what
   * Esc at the prompt does.
   */
  answer?: PermissionAnswer;
  compact?: boolean;
}

export interface PermissionAnswer {
  gateFile?: string;
  delayMs?: number;
  interrupt?: boolean;
}

/** Resolves once the answer to a permission request may go (the gate file exists, the delay passed). */
async function answerTime(answer: PermissionAnswer | undefined, deadline: number): Promise<void> {
  if (answer?.delayMs) await new Promise((resolve) => setTimeout(resolve, answer.delayMs));
  while (answer?.gateFile && !existsSync(answer.gateFile) && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 50));
}

interface Message {
  type?: string;
  id?: string | number;
  method?: string;
  params?: { notification?: { type?: string } };
}

const HEADER = { jsonrpc: '2.0', factoryApiVersion: '1.0.0' } as const;

/** Runs one session (initialize, one user message, compaction, close) and resolves with Droid's exit code. */
export function driveJsonRpc(o: RpcOptions): Promise<number> {
  const child = spawn(
    o.bin,
    ['exec', '--input-format', 'stream-jsonrpc', '--output-format', 'stream-jsonrpc'],
    {
      cwd: o.cwd,
      env: o.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true, // its own process group, killed as one at the deadline
    },
  );
  const started = Date.now();
  const log = (line: string) => appendFileSync(o.transcriptFile, `${line}\n`);
  const pending = new Map<string, (m: Message) => void>();
  let onNotification: (m: Message) => void = () => {};
  let nextId = 0;
  let buffer = '';

  const send = (message: Record<string, unknown>) => {
    const line = JSON.stringify({ ...message, ...HEADER });
    log(`>> ${line}`);
    if (child.stdin.writable) child.stdin.write(`${line}\n`);
  };
  const call = (method: string, params: Record<string, unknown>) =>
    new Promise<Message>((resolve) => {
      const id = String(++nextId);
      pending.set(id, resolve);
      send({ type: 'request', id, method, params });
    });

  child.stderr.on('data', (d: Buffer) => appendFileSync(o.stderrFile, d));
  child.stdout.on('data', (d: Buffer) => {
    appendFileSync(o.stdoutFile, d);
    buffer += d.toString('utf8');
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      const line = buffer.slice(0, nl).trim();
      buffer = buffer.slice(nl + 1);
      if (!line) continue;
      log(`<< ${line}`);
      let m: Message;
      try {
        m = JSON.parse(line) as Message;
      } catch {
        continue;
      }
      if (m.type === 'response' && pending.has(String(m.id))) {
        const resolve = pending.get(String(m.id))!;
        pending.delete(String(m.id));
        resolve(m);
      } else if (m.type === 'request' && m.method === 'droid.request_permission') {
        const id = m.id;
        void answerTime(o.answer, started + o.deadlineMs).then(() => {
          log(`-- permission request ${String(id)} answered${o.answer?.interrupt ? ' by an interrupt' : ''}`);
          if (o.answer?.interrupt) void call('droid.interrupt_session', {});
          else send({ type: 'response', id, result: { selectedOption: o.permission ?? 'proceed_once' } });
        });
      } else if (m.type === 'request' && m.method === 'droid.ask_user') {
        send({ type: 'response', id: m.id, result: { cancelled: true } });
      } else onNotification(m);
    }
  });

  const exited = exitWithin(child, o.deadlineMs, o.stderrFile);

  const session = (async () => {
    const init = await call('droid.initialize_session', {
      machineId: 'hookd-tests',
      cwd: o.cwd,
      modelId: o.model,
      skipPermissionsUnsafe: false,
    });
    log(`-- initialize_session answered: ${JSON.stringify(init).slice(0, 300)}`);
    const turnEnded = new Promise<void>((resolve) => {
      onNotification = (m) => {
        if (m.params?.notification?.type === 'agent_turn_completed') resolve();
      };
    });
    await call('droid.add_user_message', { text: o.prompt });
    await turnEnded;
    onNotification = () => {};
    if (o.compact !== false) await call('droid.compact_session', {});
    await call('droid.close_session', { reason: 'other' });
    child.stdin.end();
    // A closed session exits at once; if it does not, it is ended (its exit code then says so).
    const grace = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {}
    }, 15_000);
    void exited.then(() => clearTimeout(grace));
  })();
  // Whatever happens to the session, the result is Droid's exit (the deadline makes sure it comes).
  void session.catch(() => {});
  return exited;
}
