import { ADAPTERS } from '../agents/adapters/registry.js';
import { TELEMETRY_DEFAULTS } from '../config/schemas/telemetry-schema.js';
import type { HookdConfig } from '../config/schemas/schema.js';
import { UsageError } from '../errors.js';
import type { Env } from '../paths.js';
import { receiverToken, receiverTokenPath } from '../telemetry/receiver-token.js';
import { isObject } from '../util/json-values.js';
import { agentHooksFiles, claudeManagedDir, claudeManagedDropIns } from './agent-files.js';
import { AGENT_PROFILES, type Agent } from './agents.js';
import { readHooksFile } from './effective-hooks.js';

/**
 * The `env` key that lists what `hookd install --otel` added to the agent's `env`, comma separated, so
 * that uninstall removes exactly those; the item `env` says hookd made the `env` object itself.
 */
export const OTEL_MARKER = 'HOOKD_OTEL';
const MADE_ENV = 'env';

/** Keys that, set in the agent's managed settings, decide where its telemetry goes: hookd leaves them. */
const ROUTING_KEYS = [
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT',
  'OTEL_EXPORTER_OTLP_LOGS_ENDPOINT',
  'OTEL_EXPORTER_OTLP_HEADERS',
  'OTEL_METRICS_EXPORTER',
  'OTEL_LOGS_EXPORTER',
  'CLAUDE_CODE_ENABLE_TELEMETRY',
];

/** Shown instead of the receiver token in diffs and output. */
export const TOKEN_SHOWN = '<receiver token>';

/** A diff or text with every receiver token (a bearer of 64 hex digits) replaced by TOKEN_SHOWN. */
export function hideReceiverToken(text: string): string {
  return text.replace(/(Bearer(?:%20|\s)+)[0-9a-f]{64}/gi, `$1${TOKEN_SHOWN}`);
}

/** What --otel does to the `env` of the settings file: its new value, or why it stays as it is. */
export interface OtelEnvPlan {
  /** The new `env` (undefined: no `env` key); only meaningful when `change` is true. */
  env: Record<string, unknown> | undefined;
  change: boolean;
  /** The keys written (hookd's, new or updated). */
  keys: string[];
  notes: string[];
}

function markerKeys(env: Record<string, unknown>): string[] {
  const value = env[OTEL_MARKER];
  return typeof value === 'string' ? value.split(',').filter(Boolean) : [];
}

/**
 * The agent's `env` with `wanted` set. A key hookd added before is updated; a key the user set to the
 * same value is kept as theirs; a key the user set to another value (their own collector) stops the
 * whole change, with a note saying why.
 */
export function withOtelEnv(
  current: unknown,
  wanted: Record<string, string>,
  file: string,
): Pick<OtelEnvPlan, 'env' | 'change' | 'keys'> & { conflict?: string } {
  const env = isObject(current) ? { ...current } : {};
  const ours = markerKeys(env);
  for (const [key, value] of Object.entries(wanted))
    if (key in env && !ours.includes(key) && env[key] !== value)
      return {
        env: undefined,
        change: false,
        keys: [],
        conflict: `${file} already sets ${key} (to ${JSON.stringify(String(env[key])).slice(0, 80)}): the agent's telemetry goes where you said, so hookd leaves its OpenTelemetry settings alone (remove that key and run this again to send it to hookd)`,
      };
  // hookd's keys from an earlier install that it no longer writes go.
  for (const key of ours) if (key !== MADE_ENV && !(key in wanted)) delete env[key];
  const added: string[] = [];
  const keys: string[] = [];
  for (const [key, value] of Object.entries(wanted)) {
    if (key in env && !ours.includes(key)) continue; // the user's own, with the same value
    if (env[key] !== value) keys.push(key);
    env[key] = value;
    added.push(key);
  }
  const madeEnv = !isObject(current) || ours.includes(MADE_ENV);
  if (added.length > 0) env[OTEL_MARKER] = [...added, ...(madeEnv ? [MADE_ENV] : [])].join(',');
  else delete env[OTEL_MARKER];
  const change = JSON.stringify(env) !== JSON.stringify(isObject(current) ? current : {});
  return { env, change, keys };
}

/** The agent's `env` without what --otel added; unchanged when hookd added nothing. */
export function withoutOtelEnv(current: unknown): {
  env: Record<string, unknown> | undefined;
  removed: string[];
} {
  if (!isObject(current) || !(OTEL_MARKER in current))
    return { env: isObject(current) ? current : undefined, removed: [] };
  const ours = markerKeys(current);
  const env = { ...current };
  const removed = ours.filter((k) => k !== MADE_ENV && k in env);
  for (const key of removed) delete env[key];
  delete env[OTEL_MARKER];
  const madeByHookd = ours.includes(MADE_ENV) && Object.keys(env).length === 0;
  return { env: madeByHookd ? undefined : env, removed };
}

/** The managed settings files of the agent that set where its telemetry goes, with the key. */
async function managedRouting(
  agent: Agent,
  env: Env,
  projectDir: string,
  managedDir: string | undefined,
): Promise<{ file: string; key: string } | undefined> {
  if (!ADAPTERS[agent].settings.managedDir) return undefined;
  const dir = managedDir ?? claudeManagedDir();
  const files = agentHooksFiles(agent, {
    env,
    projectDir,
    claudeManagedDir: dir,
    claudeManagedDropIns: claudeManagedDropIns(dir),
  }).filter((f) => f.layer === 'managed');
  for (const f of files) {
    const read = await readHooksFile(f);
    const managedEnv = isObject(read.data) && isObject(read.data.env) ? read.data.env : undefined;
    const key = ROUTING_KEYS.find((k) => managedEnv && k in managedEnv);
    if (key) return { file: f.file, key };
    if (isObject(read.data) && 'otelHeadersHelper' in read.data)
      return { file: f.file, key: 'otelHeadersHelper' };
  }
  return undefined;
}

/**
 * What `hookd install --otel` writes into the agent's settings `env`: the keys that make it export its
 * OpenTelemetry to hookd's receiver on 127.0.0.1 with the receiver's bearer token. Left alone (with a
 * note) when the machine's managed settings already route the agent's telemetry (a company's
 * collector) or the file sends it elsewhere. A dry run never makes the token.
 */
export async function planOtelEnv(options: {
  agent: Agent;
  current: unknown;
  file: string;
  env: Env;
  projectDir: string;
  config: HookdConfig | undefined;
  managedDir: string | undefined;
  dryRun: boolean;
  /** The project's shared settings file (--scope project without --file): never given the token. */
  shared: boolean;
}): Promise<OtelEnvPlan> {
  const name = AGENT_PROFILES[options.agent].displayName;
  const { otelEnv: rules, otelByHand } = ADAPTERS[options.agent].install;
  if (!rules && otelByHand) {
    const port = options.config?.telemetry?.receiver?.port ?? TELEMETRY_DEFAULTS.receiverPort;
    const byHand = otelByHand(`http://127.0.0.1:${port}`, receiverTokenPath(options.env));
    throw new UsageError(`--otel: ${byHand.why}`, byHand.instead);
  }
  if (!rules)
    throw new UsageError(
      `--otel: hookd cannot point ${name}'s telemetry at its receiver`,
      'Leave out --otel for this agent (docs/telemetry.md says which agents export).',
    );
  if (options.shared)
    throw new UsageError(
      `--otel --scope project: ${options.file} is shared with everyone who clones the project, and the receiver's token must stay yours`,
      'Use --scope user, or --file .claude/settings.local.json (a file of this checkout only).',
    );
  const unchanged = (notes: string[]): OtelEnvPlan => ({ env: undefined, change: false, keys: [], notes });
  const managed = await managedRouting(options.agent, options.env, options.projectDir, options.managedDir);
  if (managed)
    return unchanged([
      `--otel: ${managed.file} (managed settings) sets ${managed.key}: your organization decides where ${name}'s telemetry goes, and managed settings win over this file, so hookd wrote no OpenTelemetry settings`,
    ]);
  const receiver = options.config?.telemetry?.receiver;
  const port = receiver?.port ?? TELEMETRY_DEFAULTS.receiverPort;
  const token = receiverToken(options.env, { create: !options.dryRun });
  if (!token.ok && !token.missing) throw new UsageError(`--otel: ${token.problem}`);
  const bearer = token.ok ? token.token : TOKEN_SHOWN;
  const wanted = rules(`http://127.0.0.1:${port}`, `Authorization=Bearer ${bearer}`);
  const planned = withOtelEnv(options.current, wanted, options.file);
  if (planned.conflict) return unchanged([planned.conflict]);
  const notes = [
    `--otel: ${name} exports its metrics and logs to hookd's receiver on 127.0.0.1:${port}; the settings file holds the receiver's token (${receiverTokenPath(options.env)}), so hookd keeps it private (mode 0600)`,
  ];
  if (!receiver?.enabled)
    notes.push(
      '--otel: the receiver is off: set "telemetry": { "receiver": { "enabled": true } } in your hookd config and restart the daemon',
    );
  return { ...planned, notes };
}
