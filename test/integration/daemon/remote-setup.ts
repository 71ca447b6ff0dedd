import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { collectRun, type Ran } from '../../helpers/run-hookd.js';
import { jsonLines } from '../../helpers/json-lines.js';
import { startLoopbackNtfy, type LoopbackNtfy, type NtfyMessage } from '../../harness/ntfy/server.js';
import {
  FAKE_APP_TOKEN,
  FAKE_BOT_TOKEN,
  FAKE_CHANNEL_ID,
  startFakeSlack,
  type FakeMessage,
  type FakeSlack,
} from '../../harness/slack/fake-slack.js';
import { remoteRecordFile } from '../../../src/remote/answers.js';
import type { BrokerRecord } from '../../../src/remote/broker.js';
import { tempEnv, waitFor } from './helpers.js';
import { BIN, ROOT, spawnDaemon, stopDaemon, writeConfig } from './process-helpers.js';

/**
 * Remote answers below the agent: the built hook and a real daemon, with a loopback ntfy server (access
 * control on) and a fake Slack (Socket Mode) as the channels; the tests press the buttons as the phone
 * or the Slack user would.
 */

export const DAEMON_TOKEN = 'tk_daemon_secret';
export const PHONE_TOKEN = 'tk_phone_write_only';
export const ASKS = 'hookd-asks';
export const ANSWERS = 'hookd-answers';
/** The Slack user id the config names as an approver. */
export const SLACK_APPROVER = 'U0APPROVER1';

/**
 * An example of docs/remote.md (`<!-- example: NAME -->`), exactly as written there: the tests check that
 * the documented config works.
 */
export function documentedExample(name: string): { remote: Record<string, Record<string, unknown>> } {
  const doc = readFileSync(join(ROOT, 'docs', 'remote.md'), 'utf8');
  const block = new RegExp(`<!-- example: ${name} -->\\s*\`\`\`json\\n([\\s\\S]*?)\`\`\``).exec(doc);
  if (!block) throw new Error(`docs/remote.md lost its ${name} example`);
  return JSON.parse(block[1]!) as { remote: Record<string, Record<string, unknown>> };
}

export interface RemoteSetUpOptions {
  /** The channels configured (default: ntfy only). */
  channels?: ('ntfy' | 'slack')[];
  waitSec?: number;
  hooks?: Record<string, unknown>;
  /** Slack's Web API somewhere else than the fake Slack, and its call timeout. */
  slackApiBaseUrl?: string;
  slackTimeoutMs?: number;
  /** Variables the config names that are left out of the daemon's environment. */
  unset?: string[];
  pids: number[];
  cleanups: (() => Promise<void> | void)[];
}

export async function setUpRemote(options: RemoteSetUpOptions) {
  const { pids, cleanups } = options;
  const channels = options.channels ?? ['ntfy'];
  const temp = tempEnv();
  cleanups.push(temp.cleanup);
  const ntfy = await startLoopbackNtfy({
    [DAEMON_TOKEN]: { read: [ANSWERS], write: [ASKS] },
    [PHONE_TOKEN]: { read: [], write: [ANSWERS] },
  });
  cleanups.push(() => ntfy.close());
  const slack = await startFakeSlack();
  cleanups.push(() => slack.close());
  const project = join(temp.root, 'project');
  mkdirSync(project, { recursive: true });
  const env = {
    ...temp.env,
    NTFY_TOKEN: DAEMON_TOKEN,
    NTFY_REPLY_TOKEN: PHONE_TOKEN,
    SLACK_APP_TOKEN: FAKE_APP_TOKEN,
    SLACK_BOT_TOKEN: FAKE_BOT_TOKEN,
  } as Record<string, string>;
  for (const name of options.unset ?? []) delete env[name];
  const ntfyExample = documentedExample('remote-ntfy').remote.ntfy!;
  const slackExample = documentedExample('remote-slack').remote.slack!;
  writeConfig(env, {
    ...(options.hooks ? { hooks: options.hooks } : {}),
    notify: { presence: { source: 'off' } },
    remote: {
      ...(options.waitSec ? { waitSec: options.waitSec } : {}),
      ...(channels.includes('ntfy') ? { ntfy: { ...ntfyExample, server: ntfy.url } } : {}),
      ...(channels.includes('slack')
        ? {
            slack: {
              ...slackExample,
              channel: FAKE_CHANNEL_ID,
              approvers: [SLACK_APPROVER],
              apiBaseUrl: options.slackApiBaseUrl ?? slack.apiBaseUrl,
              ...(options.slackTimeoutMs ? { timeoutMs: options.slackTimeoutMs } : {}),
            },
          }
        : {}),
    },
  });
  const daemon = await spawnDaemon(env);
  pids.push(daemon.pid!);
  cleanups.push(() => stopDaemon(daemon));
  if (channels.includes('ntfy'))
    await waitFor(() => ntfy.subscribers() === 1, 10_000, 'the daemon to subscribe to the reply topic');
  if (channels.includes('slack') && !options.unset?.length && !options.slackApiBaseUrl)
    await waitFor(() => slack.linksOpen() === 1, 10_000, 'the daemon to open its Socket Mode link');
  const records = () => jsonLines<BrokerRecord>(remoteRecordFile(env));
  const hook = (payload: Record<string, unknown>, agent = 'claude') =>
    runHook({ env, project, pids }, payload, agent);
  const daemonLog = () => jsonLines<{ msg: string }>(join(env.HOOKD_STATE_DIR!, 'logs', 'daemon.log'));
  return { env, ntfy, slack, project, records, hook, daemonLog };
}

/** Runs the built hook on one event in `project`, as the agent does. */
export function runHook(
  at: { env: Record<string, string | undefined>; project: string; pids: number[] },
  payload: Record<string, unknown>,
  agent = 'claude',
): Promise<Ran> {
  const child = spawn(process.execPath, [BIN, 'hook', '--agent', agent], {
    env: at.env as NodeJS.ProcessEnv,
    cwd: at.project,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  at.pids.push(child.pid!);
  return collectRun(child, { stdin: JSON.stringify(payload) });
}

export type RemoteSetup = Awaited<ReturnType<typeof setUpRemote>>;

export function permissionRequest(
  s: { project: string },
  command: string,
  session = 'sess-1',
): Record<string, unknown> {
  return {
    session_id: session,
    transcript_path: join(s.project, 't.jsonl'),
    cwd: s.project,
    prompt_id: 'p1',
    permission_mode: 'default',
    hook_event_name: 'PermissionRequest',
    tool_name: 'Bash',
    tool_input: { command, description: 'scripted command' },
    permission_suggestions: [{ type: 'setMode', mode: 'acceptEdits', destination: 'session' }],
  };
}

/** The ask published on ntfy for `command` (waits for it). */
export function askFor(ntfy: LoopbackNtfy, command: string): Promise<NtfyMessage> {
  return waitFor(
    () => ntfy.messages(ASKS).find((m) => m.actions && m.message.includes(`$ ${command}`)),
    15_000,
    `the ask for ${command}`,
  );
}

/** The Slack message posted for `command` (waits for it). */
export function slackAskFor(slack: FakeSlack, command: string): Promise<FakeMessage> {
  return waitFor(
    () => slack.messages.find((m) => JSON.stringify(m.versions[0]).includes(command)),
    15_000,
    `the Slack ask for ${command}`,
  );
}

/** The message as first posted: its buttons, for a click that comes after it was edited. */
export function asPosted(message: FakeMessage): FakeMessage {
  return { ...message, versions: [message.versions[0]!] };
}

export function decision(ran: Ran): unknown {
  return ran.stdout.trim() === '' ? undefined : (JSON.parse(ran.stdout) as unknown);
}

export const refusedWith = (s: RemoteSetup, reason: string) =>
  waitFor(
    () => s.records().find((r) => r.kind === 'refused' && r.reason === reason),
    10_000,
    `a refused answer (${reason}) in the record`,
  );
