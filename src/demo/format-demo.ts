import { formatDuration, paint, type Out } from '../terminal/output.js';
import type { HookReport } from '../hook-path/process-event.js';
import { commandMark, reportJson } from '../explain/format-report.js';

/** One hook command of a played event, as `hookd emit --json` reports it, with the event's name. */
export interface DemoCommand {
  event: string;
  name: string;
  command: string;
  blocking: boolean;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  killedBy: string | null;
  spawnError: string | null;
  durationMs: number;
  stdout: string;
  stderr: string;
}

/** One played event: what the hook path did with it. */
export interface DemoEventResult {
  index: number;
  name: string;
  tool: string | null;
  /** What the event is about, in a few words: the shell command, the file, the prompt type... */
  detail: string | null;
  sessionId: string | null;
  subagent: boolean;
  commands: DemoCommand[];
  /** The blocking decision that reached the agent, if any. */
  decidedBy: string | null;
  agentExitCode: number;
  /** acked (the daemon has it on disk), spooled or failed. */
  handoff: string | null;
}

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;

/** A few words on what an event is about (the payload field a person would look at first). */
export function eventDetail(payload: Record<string, unknown>): string | null {
  const input = (payload.tool_input ?? {}) as Record<string, unknown>;
  const file = text(input.file_path);
  const found =
    text(input.command) ??
    (file ? file.slice(file.lastIndexOf('/') + 1) : undefined) ??
    text(input.description) ??
    text(payload.notification_type) ??
    text(payload.source) ??
    text(payload.trigger) ??
    text(payload.reason) ??
    text(payload.task_name);
  if (!found) return null;
  const line = found.split('\n')[0]!;
  return line.length > 32 ? `${line.slice(0, 31)}…` : line;
}

/** The event's facts from the hook report. */
export function demoEventResult(index: number, report: HookReport, subagent: boolean): DemoEventResult {
  const event = report.event;
  const name = event?.name ?? 'rejected';
  const tool = typeof event?.payload.tool_name === 'string' ? event.payload.tool_name : null;
  return {
    index,
    name,
    tool,
    detail: event ? eventDetail(event.payload) : null,
    sessionId: event?.sessionId ?? null,
    subagent,
    commands: (reportJson(report) as { commands: Omit<DemoCommand, 'event'>[] }).commands.map((c) => ({
      event: name,
      ...c,
    })),
    decidedBy: report.reply.decidedBy ?? null,
    agentExitCode: report.reply.exitCode,
    handoff: report.handoff?.outcome ?? null,
  };
}

function commandText(c: DemoCommand, out: Pick<Out, 'color'>): string {
  const status = c.timedOut ? 'timed out' : c.exitCode === null ? `signal ${c.signal}` : `exit ${c.exitCode}`;
  const mark = commandMark(out, { ...c, spawnError: c.spawnError ?? undefined }, c.blocking);
  const said = c.stdout.trim()
    ? paint(out, 'gray', ` "${c.stdout.trim().split('\n')[0]!.slice(0, 60)}"`)
    : '';
  return `${mark} ${c.name} ${status} ${formatDuration(c.durationMs)}${c.blocking ? ' [blocking]' : ''}${said}`;
}

/** `03 PreToolUse Execute       ✓ guard exit 0 48ms [blocking]` (sub-agent events marked ↳). */
export function formatDemoEvent(e: DemoEventResult, out: Pick<Out, 'color'>): string {
  const label = `${e.subagent ? '↳ ' : ''}${e.name}${e.tool ? ` ${e.tool}` : ''}`;
  const detail = e.detail ?? '';
  const head = `${paint(out, 'gray', String(e.index).padStart(2, '0'))} ${paint(out, 'bold', label)} ${detail ? paint(out, 'gray', detail) : ''}`;
  const pad = ' '.repeat(Math.max(1, 46 - label.length - detail.length));
  const commands =
    e.commands.length > 0
      ? e.commands.map((c) => commandText(c, out)).join(', ')
      : paint(out, 'gray', 'no hook command');
  const decision =
    e.agentExitCode === 2 ? paint(out, 'yellow', ` → agent blocked by ${e.decidedBy ?? 'a command'}`) : '';
  const handoff = e.handoff && e.handoff !== 'acked' ? paint(out, 'yellow', ` (daemon: ${e.handoff})`) : '';
  return `${head}${pad}${commands}${decision}${handoff}\n`;
}

/** A section heading of the demo's output. */
export function heading(text: string, out: Pick<Out, 'color'>): string {
  return `\n${paint(out, 'bold', `── ${text} `)}${paint(out, 'gray', '─'.repeat(Math.max(3, 60 - text.length)))}\n`;
}
