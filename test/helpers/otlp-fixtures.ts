import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_DIR } from './fixtures.js';
import { attributesOf, decodeExport } from '../../src/telemetry/otlp-decode.js';
import type { OtlpEncoding } from '../../src/telemetry/otlp-encode.js';
import type { Signal } from '../../src/telemetry/signals.js';

/** The recorded OTLP requests of the real agents (test/fixtures/otlp/README.md). */
export const OTLP_FIXTURES_DIR = join(REPO_DIR, 'test', 'fixtures', 'otlp');

export interface RecordedOtlp {
  file: string;
  /** `/v1/metrics`, `/v1/logs`, `/v1/traces`. */
  path: string;
  signal: Signal;
  contentType: string;
  encoding: OtlpEncoding;
  /** The body exactly as the agent sent it. */
  body: Buffer;
}

/**
 * One recorded run's requests, in the order the agent sent them (e.g. `claude-code-2.1.330/protobuf`),
 * from the fixtures or from another directory the harness's OTLP sidecar wrote (`root`).
 */
export function recordedOtlp(run: string, root = OTLP_FIXTURES_DIR): RecordedOtlp[] {
  const dir = join(root, run);
  return readFileSync(join(dir, 'requests.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const r = JSON.parse(line) as { file: string; path: string; contentType: string };
      return {
        ...r,
        signal: r.path.slice('/v1/'.length) as Signal,
        encoding: r.contentType.includes('json') ? 'json' : 'protobuf',
        body: readFileSync(join(dir, r.file)),
      };
    });
}

/** The recorded runs: Claude Code 2.1.330 in both encodings, Droid 0.225.2 (JSON). */
export const RECORDED_RUNS = {
  claudeProtobuf: 'claude-code-2.1.330/protobuf',
  claudeJson: 'claude-code-2.1.330/json',
  droidJson: 'droid-0.225.2/json',
} as const;

/** The session a recorded run is of: the UUID after its first `session.id` (both encodings spell it so). */
export function recordedSessionId(run: string): string {
  const text = recordedOtlp(run)
    .map((r) => r.body.toString('latin1'))
    .join('\n');
  const found = /session\.id[^]{1,40}?([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/.exec(
    text,
  );
  if (!found) throw new Error(`no session.id in the recording ${run}`);
  return found[1]!;
}

type Node = Record<string, unknown>;
const nodes = (value: unknown): Node[] => (Array.isArray(value) ? (value as Node[]) : []);
const RESOURCES = ['resourceMetrics', 'resourceLogs', 'resourceSpans'];
const SCOPES = ['scopeMetrics', 'scopeLogs', 'scopeSpans'];

/**
 * Every attribute set of the requests from one service (its `service.name`): each resource's, and each
 * data point's, log record's, span's and span event's, decoded with hookd's own decoder.
 */
export async function attributeSets(requests: RecordedOtlp[], service: string): Promise<Node[]> {
  const out: Node[] = [];
  for (const r of requests) {
    const body = (await decodeExport(r.signal, r.body, r.encoding)) as Node;
    for (const resource of RESOURCES.flatMap((k) => nodes(body[k]))) {
      const own = attributesOf((resource.resource as Node | undefined)?.attributes);
      if (own['service.name'] !== service) continue;
      out.push(own);
      for (const scope of SCOPES.flatMap((k) => nodes(resource[k]))) {
        for (const item of [...nodes(scope.logRecords), ...nodes(scope.spans)]) {
          out.push(attributesOf(item.attributes));
          for (const event of nodes(item.events)) out.push(attributesOf(event.attributes));
        }
        for (const metric of nodes(scope.metrics))
          for (const data of Object.values(metric))
            for (const point of nodes((data as Node | undefined)?.dataPoints))
              out.push(attributesOf(point.attributes));
      }
    }
  }
  return out;
}
