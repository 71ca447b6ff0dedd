import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDaemonJournal } from '../../../src/journal/journal-schema.js';
import { listSpool, readSpoolFile } from '../../../src/link/spool.js';
import { DaemonStore } from '../../../src/journal/store.js';
import { makeTempDir } from '../../helpers/temp.js';
import { plainNotification } from '../daemon/helpers.js';
import { fuzzOptions } from './arbitraries.js';

// What the daemon reads back from disk at start-up (the journal, the spool), fed hostile content with a
// fixed seed: reading never throws, what is valid is applied, what is not is set aside.

let tmp: ReturnType<typeof makeTempDir>;
let round = 0;
beforeAll(() => {
  tmp = makeTempDir();
});
afterAll(() => tmp.cleanup());

const notification = { ...plainNotification, at: 1 };
const delivery = {
  id: 'd1',
  channel: 'desk',
  notification,
  createdAt: 1,
  state: 'pending',
  attempts: 0,
  nextAt: 1,
};

/** Journal lines: real record shapes with any field broken, and plain garbage. */
const line = fc.oneof(
  fc.constantFrom(
    'null',
    '[]',
    '{"t":"in","at":1,"h":null}',
    '{"t":"seen","ids":null}',
    '{"t":"seen","ids":["a","b"]}',
    JSON.stringify({ t: 'dlv', d: delivery }),
    JSON.stringify({ t: 'dlv', d: { ...delivery, nextAt: undefined } }),
    '{"t":"purge","id":"d1"}',
    '{"t":"__proto__","ids":[]}',
    '{"t":"constructor"}',
  ),
  fc
    .record(
      {
        t: fc.constantFrom('in', 'dlv', 'seen', 'purge', 'release', 'unhold', 'thread', 'delivered', 'x'),
        at: fc.oneof(fc.integer(), fc.string(), fc.constant(null)),
        ids: fc.oneof(fc.array(fc.string()), fc.constant(null), fc.integer()),
        id: fc.oneof(fc.string(), fc.constant(null)),
        d: fc.oneof(fc.constant(delivery), fc.jsonValue({ maxDepth: 3 })),
        h: fc.jsonValue({ maxDepth: 3 }),
      },
      { requiredKeys: ['t'] },
    )
    .map((r) => JSON.stringify(r)),
  fc.json(),
  fc.string({ maxLength: 80 }).map((s) => s.replace(/\n/g, ' ')),
);

describe('what the daemon reads back from disk (fast-check, fixed seed)', () => {
  it('the journal: never throws, applies valid records, quarantines the rest', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(line, { maxLength: 30 }), fc.boolean(), async (lines, tornTail) => {
        const dir = join(tmp.dir, `j${round++}`);
        mkdirSync(dir, { recursive: true, mode: 0o700 });
        const file = join(dir, 'journal.jsonl');
        writeFileSync(file, `${lines.join('\n')}\n${tornTail ? '{"t":"seen","ids":["tor' : ''}`, {
          mode: 0o600,
        });
        const journal = openDaemonJournal(file, { fsync: false });
        const records = await journal.open();
        try {
          const store = new DaemonStore(1000);
          for (const record of records) store.apply(record);
          expect(records.length + journal.quarantined).toBeLessThanOrEqual(lines.length);
          expect(store.counts().pending).toBeGreaterThanOrEqual(0);
        } finally {
          await journal.close();
        }
      }),
      fuzzOptions(150),
    );
  }, 120_000);

  it('the spool: any entry is read, skipped or set aside, never thrown', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            name: fc.oneof(
              fc.constantFrom('x.json', '.tmp.json', '0000000000001-a.json'),
              fc.string({ maxLength: 12 }).map((s) => `${s.replace(/[/\0]/g, '_')}.json`),
            ),
            kind: fc.constantFrom('file', 'dir'),
            text: fc.oneof(fc.json(), fc.string()),
          }),
          { maxLength: 8 },
        ),
        (entries) => {
          const dir = join(tmp.dir, `s${round++}`);
          mkdirSync(dir, { recursive: true, mode: 0o700 });
          for (const entry of entries) {
            const path = join(dir, entry.name);
            try {
              if (entry.kind === 'dir') mkdirSync(path);
              else writeFileSync(path, entry.text);
            } catch {}
          }
          for (const name of listSpool(dir)) {
            const text = readSpoolFile(dir, name);
            expect(text === undefined || typeof text === 'string').toBe(true);
          }
        },
      ),
      fuzzOptions(150, true),
    );
  });
});
