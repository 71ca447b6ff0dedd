import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_DIR } from './fixtures.js';
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

/** One recorded run's requests, in the order the agent sent them (e.g. `claude-code-2.1.330/protobuf`). */
export function recordedOtlp(run: string): RecordedOtlp[] {
  const dir = join(OTLP_FIXTURES_DIR, run);
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
