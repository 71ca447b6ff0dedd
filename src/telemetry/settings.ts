import { TELEMETRY_DEFAULTS, type TelemetryExportConfig } from '../config/schemas/telemetry-schema.js';
import type { Env } from '../paths.js';
import { SIGNALS, type Attributes, type Signal } from './signals.js';
import type { OtlpEncoding } from './otlp-encode.js';

/** Where one signal goes and how. */
export interface SignalTarget {
  url: string;
  headers: Record<string, string>;
  encoding: OtlpEncoding;
  timeoutMs: number;
}

export type ExportSettings =
  | { enabled: false; reason: string }
  | {
      enabled: true;
      targets: Partial<Record<Signal, SignalTarget>>;
      resource: Attributes;
      includeCommandLines: boolean;
      includePrompts: boolean;
      maxQueue: number;
      /** Problems worth a warning (an unsupported protocol, a malformed header). */
      problems: string[];
    };

const SIGNAL_ENV: Record<Signal, string> = { traces: 'TRACES', metrics: 'METRICS', logs: 'LOGS' };

const decode = (text: string): string => {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
};

/** `key=value,key2=value2` (values percent-decoded), as the OTel variables spell lists. */
export function parseKeyValueList(text: string | undefined, problems: string[], what: string) {
  const out: Record<string, string> = {};
  for (const part of (text ?? '').split(',')) {
    if (part.trim() === '') continue;
    const eq = part.indexOf('=');
    const key = eq > 0 ? part.slice(0, eq).trim() : '';
    if (!key) {
      problems.push(`${what}: an entry without "key=" is ignored`);
      continue;
    }
    out[decode(key)] = decode(part.slice(eq + 1).trim());
  }
  return out;
}

const set = (value: string | undefined) => (value && value.trim() !== '' ? value.trim() : undefined);

function encodingOf(protocol: string | undefined, problems: string[]): OtlpEncoding | undefined {
  const value = protocol ?? TELEMETRY_DEFAULTS.protocol;
  if (value === 'http/protobuf') return 'protobuf';
  if (value === 'http/json') return 'json';
  problems.push(
    `OTLP protocol "${value}" is not supported by hookd (it speaks http/protobuf and http/json); nothing is sent`,
  );
  return undefined;
}

function timeoutOf(text: string | undefined, fallback: number): number {
  const value = Number(text);
  return Number.isFinite(value) && value > 0 ? value : fallback;
}

/** A base endpoint with the signal's path added, as the OTLP exporter specification says. */
const withPath = (base: string, signal: Signal) => `${base.replace(/\/+$/, '')}/v1/${signal}`;

function validUrl(text: string, problems: string[], what: string): string | undefined {
  try {
    const url = new URL(text);
    if (url.protocol === 'http:' || url.protocol === 'https:') return url.toString();
  } catch {}
  problems.push(`${what}: "${text}" is not an http(s) URL; that signal is not sent`);
  return undefined;
}

/**
 * Where the daemon's telemetry goes: the standard OTEL_* variables of the daemon's environment, else
 * hookd's config (`telemetry.export`); nothing under OTEL_SDK_DISABLED=true or without an endpoint.
 */
export function resolveExportSettings(env: Env, config: TelemetryExportConfig | undefined): ExportSettings {
  if (set(env.OTEL_SDK_DISABLED)?.toLowerCase() === 'true')
    return { enabled: false, reason: 'OTEL_SDK_DISABLED=true' };
  const problems: string[] = [];
  const base = set(env.OTEL_EXPORTER_OTLP_ENDPOINT) ?? config?.endpoint;
  const commonHeaders = {
    ...(config?.headers ?? {}),
    ...parseKeyValueList(env.OTEL_EXPORTER_OTLP_HEADERS, problems, 'OTEL_EXPORTER_OTLP_HEADERS'),
  };
  const commonProtocol = set(env.OTEL_EXPORTER_OTLP_PROTOCOL) ?? config?.protocol;
  const commonTimeout = timeoutOf(
    env.OTEL_EXPORTER_OTLP_TIMEOUT,
    config?.timeoutMs ?? TELEMETRY_DEFAULTS.timeoutMs,
  );
  const targets: Partial<Record<Signal, SignalTarget>> = {};
  for (const signal of SIGNALS) {
    const name = `OTEL_EXPORTER_OTLP_${SIGNAL_ENV[signal]}`;
    const own = set(env[`${name}_ENDPOINT`]);
    const raw = own ?? (base ? withPath(base, signal) : undefined);
    if (!raw) continue;
    const url = validUrl(raw, problems, own ? `${name}_ENDPOINT` : 'the OTLP endpoint');
    const encoding = encodingOf(set(env[`${name}_PROTOCOL`]) ?? commonProtocol, problems);
    if (!url || !encoding) continue;
    targets[signal] = {
      url,
      encoding,
      headers: {
        ...commonHeaders,
        ...parseKeyValueList(env[`${name}_HEADERS`], problems, `${name}_HEADERS`),
      },
      timeoutMs: timeoutOf(env[`${name}_TIMEOUT`], commonTimeout),
    };
  }
  if (Object.keys(targets).length === 0)
    return {
      enabled: false,
      reason: problems[0] ?? 'no OTLP endpoint (OTEL_EXPORTER_OTLP_ENDPOINT or telemetry.export.endpoint)',
    };
  const resource: Attributes = {
    ...(config?.resourceAttributes ?? {}),
    ...parseKeyValueList(env.OTEL_RESOURCE_ATTRIBUTES, problems, 'OTEL_RESOURCE_ATTRIBUTES'),
  };
  const service = set(env.OTEL_SERVICE_NAME);
  if (service) resource['service.name'] = service;
  resource['service.name'] ??= 'hookd';
  return {
    enabled: true,
    targets,
    resource,
    includeCommandLines: config?.includeCommandLines ?? false,
    includePrompts: config?.includePrompts ?? false,
    maxQueue: config?.maxQueue ?? TELEMETRY_DEFAULTS.maxQueue,
    problems,
  };
}
