import { existsSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLineLogger, createLineLoggerPool } from '../../../src/logging/line-logger.js';
import { makeTempDir } from '../../helpers/temp.js';

// The daemon's listeners keep the hook log open across events (createLineLoggerPool): records still
// follow a rotation or a removal by another process, within `reopenMs` of the logger's clock.

let tmp: ReturnType<typeof makeTempDir>;
let clock: number;
beforeEach(() => {
  tmp = makeTempDir();
  clock = 0;
});
afterEach(() => tmp.cleanup());

const msgs = (file: string) =>
  existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as { msg: string }).msg)
    : [];

describe('line loggers kept open', () => {
  it('write one file through one open; reopen it after reopenMs, following a rotation by another process', () => {
    const file = join(tmp.dir, 'logs', 'hookd.log');
    const pool = createLineLoggerPool({ reopenMs: 1000, clock: () => clock });
    const logger = pool.get(file);
    logger.log('info', {}, 'a');
    expect(pool.get(file)).toBe(logger);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // Another process rotates the file: records go on into the renamed file until the reopen.
    renameSync(file, `${file}.1`);
    logger.log('info', {}, 'b');
    expect(msgs(`${file}.1`)).toEqual(['a', 'b']);
    clock = 1000;
    logger.log('info', {}, 'c');
    expect(msgs(file)).toEqual(['c']);
    // Removed: recreated at the next reopen.
    rmSync(file);
    clock = 2500;
    logger.log('info', {}, 'd');
    expect(msgs(file)).toEqual(['d']);
    pool.close();
  });

  it('rotates at maxBytes when it reopens', () => {
    const file = join(tmp.dir, 'hookd.log');
    const logger = createLineLogger(file, { maxBytes: 100, reopenMs: 10, clock: () => clock });
    logger.log('info', { pad: 'x'.repeat(200) }, 'big');
    logger.log('info', {}, 'same open');
    expect(msgs(file)).toEqual(['big', 'same open']);
    clock = 10;
    logger.log('info', {}, 'after');
    expect(msgs(`${file}.1`)).toEqual(['big', 'same open']);
    expect(msgs(file)).toEqual(['after']);
    logger.close();
  });

  it('a file it cannot open is tried again at the next reopen', () => {
    const dir = join(tmp.dir, 'logs');
    writeFileSync(dir, 'a file where the folder should be');
    const file = join(dir, 'hookd.log');
    const logger = createLineLogger(file, { reopenMs: 1000, clock: () => clock });
    logger.log('info', {}, 'lost');
    rmSync(dir);
    clock = 500;
    logger.log('info', {}, 'still lost');
    clock = 1000;
    logger.log('info', {}, 'kept');
    expect(msgs(file)).toEqual(['kept']);
    logger.close();
  });

  it('keeps at most `max` files open, closing the least recently used', () => {
    const pool = createLineLoggerPool({ max: 2, clock: () => clock });
    const files = ['a', 'b', 'c'].map((n) => join(tmp.dir, `${n}.log`));
    const a = pool.get(files[0]!);
    const first = pool.get(files[1]!);
    expect(pool.get(files[0]!)).toBe(a);
    pool.get(files[2]!); // drops b
    expect(pool.get(files[0]!)).toBe(a);
    const b = pool.get(files[1]!); // a new one; drops c
    expect(b).not.toBe(first);
    b.log('info', {}, 'b');
    expect(msgs(files[1]!)).toEqual(['b']);
    pool.close();
  });
});
