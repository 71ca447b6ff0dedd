import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateConfigText } from '../../../src/config/validate.js';
import { parseRequest } from '../../../src/link/protocol.js';
import { parseEvent } from '../../../src/events/parse.js';
import { planCommands } from '../../../src/runner/route.js';
import { fuzzOptions, hostileEvent, hostileInput, serialize } from './arbitraries.js';

/** Generous: the properties run hundreds of cases, and CI machines are slow and shared. */
const FUZZ_TIMEOUT = 120_000;

// Parsers at hookd's boundaries, fed hostile input with a fixed seed: none may throw. Each either
// accepts its input or says why not.

const keyish = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'toString', 'valueOf', 'hasOwnProperty'),
  fc.string({ maxLength: 12 }),
);

/** Config files that look like hookd's, with every value allowed to be wrong. */
const configLike = fc
  .record(
    {
      hooks: fc.dictionary(
        fc.oneof(fc.constantFrom('PreToolUse', 'Stop', '__proto__', 'constructor'), keyish),
        fc.array(
          fc.record(
            {
              matcher: fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom('(', '[', '*', '+', '\\')),
              commandRegex: fc.oneof(fc.string({ maxLength: 10 }), fc.constant('(?<')),
              hooks: fc.array(
                fc.record(
                  {
                    type: fc.oneof(fc.constant('command'), fc.string()),
                    command: fc.oneof(fc.string(), fc.integer()),
                    timeout: fc.oneof(fc.double(), fc.integer(), fc.string()),
                    blocking: fc.oneof(fc.boolean(), fc.string()),
                    env: fc.dictionary(keyish, fc.jsonValue({ maxDepth: 1 })),
                  },
                  { requiredKeys: [] },
                ),
                { maxLength: 3 },
              ),
            },
            { requiredKeys: [] },
          ),
          { maxLength: 3 },
        ),
      ),
      settings: fc.dictionary(keyish, fc.jsonValue({ maxDepth: 2 })),
      notify: fc.jsonValue({ maxDepth: 3 }),
      extra: fc.jsonValue({ maxDepth: 2 }),
    },
    { requiredKeys: [] },
  )
  .map((value) => JSON.stringify(value));

describe('boundary parsers never throw (fast-check, fixed seed)', () => {
  it(
    'parseEvent: any bytes are an event or a reasoned rejection',
    () => {
      fc.assert(
        fc.property(hostileInput('/tmp/project'), (bytes) => {
          const parsed = parseEvent(bytes, {});
          if (!parsed.ok) expect(parsed.detail).not.toBe('');
        }),
        fuzzOptions(150, true),
      );
    },
    FUZZ_TIMEOUT,
  );

  it(
    'validateConfigText: any text is a config or a list of issues with paths',
    () => {
      fc.assert(
        fc.property(fc.oneof(configLike, fc.string(), fc.json()), (text) => {
          const result = validateConfigText(text, '/x/config.json');
          if (!result.ok) {
            expect(result.issues.length).toBeGreaterThan(0);
            for (const issue of result.issues) expect(typeof issue.path).toBe('string');
          }
        }),
        fuzzOptions(400, true),
      );
    },
    FUZZ_TIMEOUT,
  );

  it(
    'planCommands: any event against any valid config routes without throwing',
    () => {
      // Valid by construction (a filter over configLike would reject almost every case): any event names,
      // matchers and regexes, which routing must survive.
      const configs = fc
        .record({
          hooks: fc.dictionary(
            fc.oneof(fc.constantFrom('PreToolUse', 'Stop', 'constructor', 'toString'), keyish),
            fc.array(
              fc.record({
                matcher: fc.oneof(
                  fc.string({ maxLength: 20 }),
                  fc.constantFrom('(', '[', '*', 'Execute|Bash', '.*'),
                ),
                commandRegex: fc.oneof(fc.string({ maxLength: 10 }), fc.constant('(?<')),
                hooks: fc.array(
                  fc.record({ type: fc.constant('command'), command: fc.string({ minLength: 1 }) }),
                  {
                    minLength: 1,
                    maxLength: 3,
                  },
                ),
              }),
              { maxLength: 3 },
            ),
          ),
        })
        .map((value) => validateConfigText(JSON.stringify(value), '/x/config.json'))
        .filter((r): r is Extract<typeof r, { ok: true }> => r.ok);
      fc.assert(
        fc.property(configs, hostileEvent('/tmp/project'), (valid, event) => {
          const parsed = parseEvent(serialize(event), {});
          if (!parsed.ok) return;
          const plan = planCommands(parsed.event, valid.config);
          expect(Array.isArray(plan.commands)).toBe(true);
        }),
        fuzzOptions(150, true),
      );
    },
    FUZZ_TIMEOUT,
  );

  it(
    'parseRequest: any line is a request or an error reply',
    () => {
      const hostileRequest = fc
        .record(
          {
            v: fc.oneof(fc.constant(1), fc.jsonValue({ maxDepth: 1 })),
            type: fc.oneof(
              fc.constantFrom('event', 'outbox', 'status', 'noise'),
              fc.jsonValue({ maxDepth: 1 }),
              fc.constant({ toString: 1, valueOf: 1 }),
            ),
            event: fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.constant(null)),
          },
          { requiredKeys: [] },
        )
        .map((value) => JSON.stringify(value));
      fc.assert(
        fc.property(fc.oneof(hostileRequest, fc.string(), fc.json()), (line) => {
          const parsed = parseRequest(line);
          if (!parsed.ok) expect(parsed.error).not.toBe('');
        }),
        fuzzOptions(400, true),
      );
    },
    FUZZ_TIMEOUT,
  );
});
