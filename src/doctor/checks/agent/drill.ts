import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { adapterFor, toolNamesOf } from '../../../agents/adapters/registry.js';
import { samplePayload } from '../../../events/sample.js';
import type { Agent } from '../../../install/agents.js';
import { logFilePath, type Env } from '../../../paths.js';
import { GUARD_NOT_RUN } from '../../../runner/decision.js';
import { matchesPattern } from '../../../runner/matcher.js';
import { agentName, installCommandFor, runningHookdHooks, type SettingsFileState } from './agent-settings.js';
import { result, type CheckResult } from '../../types.js';
import { runProcess } from '../../../process/run.js';

/** The drill's shell call: harmless whatever a guard lets through. */
const DRILL_COMMAND = 'true # hookd doctor --drill';
const DRILL_TIMEOUT_MS = 120_000;
/** What the drill keeps of the hook's output (it shows the last lines of stderr). */
const DRILL_OUTPUT_BYTES = 64 * 1024;

type LogRecord = Record<string, unknown>;

interface Spawned {
  code: number | null;
  stderr: string;
  stdout: string;
}

/** The agent's before-tool event and its shell tool, from its adapter. */
function drillCall(agent: Agent): { event: string; tool: string } {
  const adapter = adapterFor(agent);
  const event = Object.keys(adapter.canonicalEvents).find(
    (e) => adapter.canonicalEvents[e] === 'before-tool',
  );
  return { event: event ?? 'PreToolUse', tool: toolNamesOf(agent, 'shell')[0] ?? 'Bash' };
}

/** Runs a hook command as the agent does: `sh -c` in its own group, the payload on stdin, a deadline. */
async function runLikeAgent(command: string, payload: string, cwd: string, env: Env): Promise<Spawned> {
  const ran = await runProcess({
    command,
    cwd,
    env,
    stdin: Buffer.from(payload),
    timeoutMs: DRILL_TIMEOUT_MS,
    killGraceMs: 0,
    maxOutputBytes: DRILL_OUTPUT_BYTES,
  });
  return { code: ran.exitCode, stdout: ran.stdout.text(), stderr: ran.spawnError ?? ran.stderr.text() };
}

/** The log records written after `offset` for one session id. */
function recordsSince(file: string, offset: number, sessionId: string): LogRecord[] {
  let text = '';
  try {
    const size = statSync(file).size;
    const start = size >= offset ? offset : 0;
    const buf = Buffer.alloc(size - start);
    const fd = openSync(file, 'r');
    readSync(fd, buf, 0, buf.length, start);
    closeSync(fd);
    text = buf.toString('utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as LogRecord];
      } catch {
        return [];
      }
    })
    .filter((r) => r.sessionId === sessionId);
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

function describeCommand(record: LogRecord): string {
  const name = String(record.name);
  if (record.outcome === GUARD_NOT_RUN || record.outcome === 'not run') {
    const why = record.spawnError
      ? `could not start: ${String(record.spawnError)}`
      : record.timedOut
        ? record.killedBy === 'budget'
          ? "the event's time budget ran out"
          : `timed out after ${String(record.timeoutMs)} ms`
        : `died of ${String(record.signal)}`;
    return `${name}: ${String(record.outcome)} (${why})`;
  }
  const said = String(record.stderrTail ?? '').trim();
  const decision =
    record.blocking === false
      ? 'observe-only'
      : record.exitCode === 2
        ? `blocks${said ? `: ${said}` : ''}`
        : String(record.stdoutTail ?? '')
              .trim()
              .startsWith('{')
          ? `answers ${String(record.stdoutTail).trim().slice(0, 200)}`
          : 'no decision';
  return `${name}: ran, exit ${String(record.exitCode)}, ${decision}`;
}

/**
 * `hookd doctor --drill`: fires a harmless before-tool event in the agent's own name (PreToolUse,
 * Gemini's BeforeTool) for its shell tool (a call of `true`, marked as a drill)
 * through the hookd command installed in the agent's settings, spawned as the agent spawns it, then
 * reads hookd's log for that event and shows which guards ran and what they decided. The hand-off to
 * the daemon is off, so the drill never reaches notifications or the ledger.
 */
export async function runDrill(
  agent: Agent,
  states: readonly SettingsFileState[],
  env: Env,
  projectDir: string,
): Promise<CheckResult> {
  const id = `drill-${agent}`;
  const title = `${agentName(agent)} drill: a shell call through the installed hook`;
  const { event: beforeTool, tool } = drillCall(agent);
  const hook = runningHookdHooks(states).find(
    (h) => h.event === beforeTool && matchesPattern(h.matcher as string | undefined, tool),
  );
  if (!hook) {
    return result(
      id,
      title,
      'skip',
      `no hookd entry for ${beforeTool} ${tool} calls in ${agentName(agent)}'s settings`,
    );
  }
  const sessionId = `hookd-drill-${Date.now()}-${process.pid}`;
  const home = env.HOME ?? '/';
  const fields: Record<string, unknown> =
    agent === 'claude'
      ? {
          transcript_path: join(home, '.claude', 'projects', 'hookd-drill', `${sessionId}.jsonl`),
          tool_use_id: `toolu_${sessionId}`,
        }
      : {};
  const payload = samplePayload('PreToolUse', {
    sessionId,
    cwd: projectDir,
    home,
    tool,
    command: DRILL_COMMAND,
    fields,
  });
  if (agent !== 'droid' && agent !== 'claude') {
    // The agent's own event name, and no Droid transcript path that would say the event is Droid's.
    payload.hook_event_name = beforeTool;
    payload.tool_input = { command: DRILL_COMMAND };
    delete payload.transcript_path;
    delete payload.permission_mode;
  }
  const agentEnv: Env = { ...env, CLAUDE_PROJECT_DIR: projectDir, HOOKD_DAEMON: '0' };
  if (agent === 'droid') {
    Object.assign(agentEnv, { FACTORY_PROJECT_DIR: projectDir, DROID_PROJECT_DIR: projectDir });
    for (const [key, value] of Object.entries(payload)) if (typeof value === 'string') agentEnv[key] = value;
  }
  const logFile = logFilePath(env);
  const offset = sizeOf(logFile);
  const ran = await runLikeAgent(hook.command, JSON.stringify(payload), projectDir, agentEnv);
  const records = recordsSince(logFile, offset, sessionId);
  const event = records.find((r) => r.kind === 'event');
  const header = `fired ${beforeTool} ${tool} \`true\` through ${hook.file}: ${hook.command}`;
  const install = installCommandFor(agent, states);
  if (!event) {
    const said = ran.stderr.trim().split('\n').slice(-3).join(' / ');
    return result(
      id,
      title,
      'fail',
      `${header}\nthe installed command did not run hookd (exit ${ran.code ?? 'killed'})${said ? `: ${said}` : ''}`,
      `run \`${install}\` again from the hookd you want to use, then \`hookd doctor --drill\``,
    );
  }
  const commands = records.filter((r) => r.kind === 'command');
  const notRun = Number(event.notRun ?? 0);
  const lines = [
    header,
    `hookd answered exit ${ran.code}${event.decidedBy ? ` (decided by ${String(event.decidedBy)})` : ''}; ${commands.length} command(s) matched`,
    ...commands.map((r) => `  ${describeCommand(r)}`),
  ];
  if (commands.length === 0) lines.push(`  no command in hookd's config matches a ${tool} call`);
  if (notRun > 0) {
    lines.push(`${notRun} guard${notRun === 1 ? '' : 's'} not run`);
    return result(
      id,
      title,
      'fail',
      lines.join('\n'),
      `see \`hookd logs --session ${sessionId}\`; fix the command or raise its \`timeout\` (or mark it "onError": "block" to fail closed)`,
    );
  }
  return result(id, title, 'ok', lines.join('\n'));
}
