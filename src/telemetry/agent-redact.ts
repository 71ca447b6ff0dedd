import { redactText } from '../logging/redact.js';
import { isObject, type Json } from '../util/json-values.js';

/**
 * Attributes of the agents' own telemetry that are never forwarded unless `telemetry.receiver.forward` is
 * "raw" (docs/telemetry.md, "Forwarding"). Who the user is: Claude Code puts the account's e-mail, account
 * and organization ids and a device id on every metric and event; Droid its user's id, name and e-mail.
 * What the agent was asked and did: prompts, tool parameters and input, tool results, message text (the
 * agents send them only when told to, and then hookd still keeps them here).
 */
export const AGENT_DROPPED_ATTRIBUTES: readonly string[] = [
  // who
  'user.email',
  'user.id',
  'user.name',
  'user.account_uuid',
  'user.account_id',
  'organization.id',
  'enduser.id',
  'host.name',
  'host.id',
  // what was asked and run
  'prompt',
  'tool_parameters',
  'tool_input',
  'tool.input',
  'tool.result',
  'message.content',
  'gen_ai.prompt',
  'gen_ai.completion',
  'gen_ai.input.messages',
  'gen_ai.output.messages',
  'gen_ai.system_instructions',
  'gen_ai.tool.call.arguments',
  'gen_ai.tool.call.result',
  'process.command_line',
  'process.command_args',
  'process.executable.path',
];
const DROPPED = new Set(AGENT_DROPPED_ATTRIBUTES);

/** Text kept of any other string (error messages, names), after the redactor. */
const MAX_TEXT = 1024;
/** Nesting kept of attribute values (arrays and maps of values). */
const MAX_DEPTH = 8;

const cleanText = (text: string): string =>
  redactText(text.length > MAX_TEXT ? text.slice(0, MAX_TEXT) : text);

/** One OTLP AnyValue with its strings redacted, and maps filtered like attributes. */
function anyValue(value: unknown, depth: number): unknown {
  if (!isObject(value) || depth > MAX_DEPTH) return {};
  if (typeof value.stringValue === 'string') return { stringValue: cleanText(value.stringValue) };
  if (isObject(value.arrayValue))
    return { arrayValue: { values: list(value.arrayValue.values).map((v) => anyValue(v, depth + 1)) } };
  if (isObject(value.kvlistValue))
    return { kvlistValue: { values: keyValues(value.kvlistValue.values, depth + 1) } };
  // Numbers, booleans; bytes values are dropped (nothing tells what they hold).
  if ('bytesValue' in value) return {};
  return value;
}

const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** An OTLP KeyValue list without the dropped keys (and any `*email`), its strings redacted. */
function keyValues(value: unknown, depth = 0): Json[] {
  const out: Json[] = [];
  for (const entry of list(value)) {
    if (!isObject(entry) || typeof entry.key !== 'string') continue;
    const key = entry.key;
    if (DROPPED.has(key) || key.toLowerCase().endsWith('email')) continue;
    out.push({ key, value: anyValue(entry.value, depth) as Json });
  }
  return out;
}

/** Fields that hold text about what happened (span and event names, status messages). */
const TEXT_FIELDS = new Set(['name', 'message']);

/**
 * An OTLP export request (OTLP/JSON shape, any signal) as hookd forwards it by default: the attributes of
 * AGENT_DROPPED_ATTRIBUTES left out at every level (resource, scope, span, span event and link, data
 * point, exemplar, log record), every other string attribute, log body, name and status message through
 * the same redactor as hookd's remote notifications (tokens, keys and passwords removed) and cut to 1024
 * characters. Ids, times, numbers and the structure are kept.
 */
export function redactAgentRequest(request: Json): Json {
  return walk(request, 0) as Json;
}

function walk(value: unknown, depth: number): unknown {
  if (Array.isArray(value)) return value.map((item) => walk(item, depth + 1));
  if (!isObject(value) || depth > 32) return value;
  const out: Json = {};
  for (const [key, field] of Object.entries(value)) {
    if (key === 'attributes' || key === 'filteredAttributes') out[key] = keyValues(field);
    else if (key === 'body') out[key] = anyValue(field, 0) as Json;
    else if (TEXT_FIELDS.has(key) && typeof field === 'string') out[key] = cleanText(field);
    else out[key] = walk(field, depth + 1) as Json;
  }
  return out;
}
