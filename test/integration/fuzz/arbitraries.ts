import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';

/** One seed for every property: a failure is reproduced by running the same test again. */
export const FUZZ_SEED = 20261123;

/**
 * fast-check options: the fixed seed, a bounded count, and a report that keeps a counterexample short
 * (the inputs hold 300 KB strings; printing them whole buries the failure).
 */
export function fuzzOptions(numRuns: number, sync = false): fc.Parameters<unknown> {
  const report = (details: fc.RunDetails<unknown>) => {
    if (!details.failed) return;
    const example = ((details.counterexample ?? []) as unknown[])
      .map((value) =>
        Buffer.isBuffer(value) ? `bytes ${JSON.stringify(value.toString('utf8'))}` : fc.stringify(value),
      )
      .join(', ');
    const shown = example.length > 600 ? `${example.slice(0, 600)}... (${example.length} chars)` : example;
    const cause =
      details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
    // HOOKD_FUZZ_DUMP=<file> keeps the whole counterexample, for replaying it by hand.
    if (process.env.HOOKD_FUZZ_DUMP) writeFileSync(process.env.HOOKD_FUZZ_DUMP, example);
    throw new Error(
      `property failed after ${details.numRuns} runs (seed ${details.seed}, path ${details.counterexamplePath}):\n${cause}\ncounterexample: ${shown}`,
    );
  };
  return sync
    ? { seed: FUZZ_SEED, numRuns, reporter: report }
    : { seed: FUZZ_SEED, numRuns, asyncReporter: async (details) => report(details) };
}

/** Names an attacker or a future agent may send: real events, object keys, odd strings. */
const eventName = fc.oneof(
  fc.constantFrom(
    'PreToolUse',
    'PostToolUse',
    'SessionStart',
    'Stop',
    'Notification',
    'StopFailure',
    'PermissionRequest',
  ),
  fc.constantFrom('constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'prototype'),
  fc.string({ maxLength: 40 }),
);

/** Nesting that a recursive parser or serializer would overflow on: `serialize` writes it out. */
const deepValue = fc.integer({ min: 1, max: 120_000 }).map((depth) => ({ __deep: depth }));

/** Strings that break naive env exports and shells: huge, NUL, newlines, quotes, `$(...)`. */
const hostileString = fc.oneof(
  fc.string({ maxLength: 60 }),
  fc.constantFrom(
    '',
    'a\u0000b',
    '$(touch pwned)',
    '`touch pwned`',
    "'; touch pwned; echo '",
    'line\nline',
    '\u202e\ud83d\ude00',
    '=',
  ),
  fc.integer({ min: 100_000, max: 300_000 }).map((n) => 'x'.repeat(n)),
);

const fieldName = fc.oneof(
  fc.constantFrom(
    '__proto__',
    'constructor',
    'toString',
    'PATH',
    'HOME',
    'LD_PRELOAD',
    'a=b',
    'with space',
    '',
  ),
  fc.string({ maxLength: 20 }),
);

const scalar = fc.oneof(hostileString, fc.integer(), fc.double(), fc.boolean(), fc.constant(null));

/**
 * An agent payload with hostile content: any event name, a cwd that exists, is gone or is nonsense,
 * huge or NUL-bearing scalars, deep values and odd keys.
 */
export function hostileEvent(
  project: string,
  overrides: Record<string, fc.Arbitrary<unknown>> = {},
): fc.Arbitrary<Record<string, unknown>> {
  return fc
    .record({
      hook_event_name: eventName,
      session_id: fc.oneof(fc.uuid(), hostileString),
      cwd: fc.oneof(fc.constant(project), fc.constant(join(project, 'deleted-dir')), hostileString),
      tool_name: fc.oneof(fc.constantFrom('Execute', 'Bash', 'Edit'), hostileString),
      tool_input: fc.oneof(fc.record({ command: hostileString }), fc.jsonValue({ maxDepth: 4 }), deepValue),
      prompt: hostileString,
      extra: fc.dictionary(fieldName, fc.oneof(scalar, deepValue), { maxKeys: 6 }),
      ...overrides,
    })
    .map(({ extra, ...fields }) => {
      const event: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
      for (const [key, value] of Object.entries(extra)) event[key] = value;
      return Object.assign(event, fields);
    });
}

/** Serializes an event; `{__deep: n}` values become n nested arrays, written without recursion. */
export function serialize(event: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const key of Object.keys(event)) {
    const value = event[key];
    const deep = typeof value === 'object' && value !== null && '__deep' in value;
    const text = deep
      ? `${'['.repeat((value as { __deep: number }).__deep)}${']'.repeat((value as { __deep: number }).__deep)}`
      : JSON.stringify(value, (_k, v: unknown) =>
          typeof v === 'object' && v !== null && '__deep' in v
            ? `deep:${(v as { __deep: number }).__deep}`
            : v,
        );
    parts.push(`${JSON.stringify(key)}:${text ?? 'null'}`);
  }
  return `{${parts.join(',')}}`;
}

/** Bytes on the hook's stdin: hostile events, deep top-level nesting, binary, truncated or non-object JSON. */
export function hostileInput(project: string): fc.Arbitrary<Buffer> {
  const event = hostileEvent(project).map((e) => serialize(e));
  return fc.oneof(
    { weight: 5, arbitrary: event.map((text) => Buffer.from(text)) },
    { weight: 1, arbitrary: event.map((text) => Buffer.from(`\ufeff${text}\n`)) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(event, fc.nat())
        .map(([text, cut]) => Buffer.from(text.slice(0, cut % Math.max(1, text.length)))),
    },
    {
      weight: 1,
      arbitrary: fc
        .integer({ min: 1000, max: 200_000 })
        .chain((n) =>
          fc.constantFrom(`${'['.repeat(n)}${']'.repeat(n)}`, `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`),
        )
        .map((text) => Buffer.from(text)),
    },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }).map((a) => Buffer.from(a)) },
    { weight: 1, arbitrary: fc.jsonValue().map((v) => Buffer.from(JSON.stringify(v) ?? 'null')) },
    { weight: 1, arbitrary: fc.constantFrom(Buffer.alloc(0), Buffer.from('   \n'), Buffer.from('null')) },
  );
}
