import { exportRequestType } from './otlp-proto.js';
import type { OtlpEncoding } from './otlp-encode.js';
import type { Signal } from './signals.js';
import { isObject, type Json } from '../util/json-values.js';

/** The id fields of OTLP messages: bytes in protobuf, hex in OTLP/JSON. */
const ID_FIELDS = new Set(['traceId', 'spanId', 'parentSpanId']);

/** A copy of an OTLP message with every string id field (traceId, spanId, parentSpanId) mapped. */
function mapIds(value: unknown, map: (id: string) => unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => mapIds(item, map));
  if (!isObject(value)) return value;
  const out: Json = {};
  for (const [key, field] of Object.entries(value))
    out[key] = ID_FIELDS.has(key) && typeof field === 'string' ? map(field) : mapIds(field, map);
  return out;
}

/** Base64 ids (as protobufjs gives bytes) turned to hex, the way OTLP/JSON spells them. */
export const idsToHex = (value: unknown): unknown =>
  mapIds(value, (id) => Buffer.from(id, 'base64').toString('hex'));

/** Hex ids (OTLP/JSON) turned to bytes, as protobufjs takes them. */
export const idsToBytes = (value: unknown): unknown => mapIds(value, (id) => Buffer.from(id, 'hex'));

export class OtlpDecodeError extends Error {}

/**
 * One OTLP/HTTP export request body as OTLP/JSON spells it (hex ids, 64-bit integers as decimal
 * strings, enums as numbers), whichever encoding it came in. A body that is not a valid request throws
 * OtlpDecodeError.
 */
export async function decodeExport(signal: Signal, body: Uint8Array, encoding: OtlpEncoding): Promise<Json> {
  if (encoding === 'json') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(body).toString('utf8'));
    } catch (error) {
      throw new OtlpDecodeError(`not JSON: ${(error as Error).message}`);
    }
    if (!isObject(parsed)) throw new OtlpDecodeError('not a JSON object');
    return parsed;
  }
  const type = await exportRequestType(signal);
  try {
    const message = type.decode(body);
    return idsToHex(
      type.toObject(message, { longs: String, bytes: String, enums: Number, arrays: true, defaults: false }),
    ) as Json;
  } catch (error) {
    throw new OtlpDecodeError(`not an OTLP ${signal} request: ${(error as Error).message}`);
  }
}

/** The plain value of an OTLP AnyValue (an int64 as a number). */
export function plainValue(value: unknown): unknown {
  if (!isObject(value)) return undefined;
  if ('stringValue' in value) return value.stringValue;
  if ('boolValue' in value) return value.boolValue;
  if ('intValue' in value) return Number(value.intValue);
  if ('doubleValue' in value) return Number(value.doubleValue);
  if ('arrayValue' in value && isObject(value.arrayValue) && Array.isArray(value.arrayValue.values))
    return value.arrayValue.values.map(plainValue);
  return undefined;
}

/** OTLP KeyValue list as a plain record. */
export function attributesOf(list: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!Array.isArray(list)) return out;
  for (const entry of list)
    if (isObject(entry) && typeof entry.key === 'string') out[entry.key] = plainValue(entry.value);
  return out;
}
