import { describe, expect, it } from 'vitest';
import { ClosedWhileStartingError, Parts } from '../../../src/daemon/lifecycle/parts.js';

// The daemon's start/close order (src/daemon/lifecycle/parts.ts) with injected parts that record what
// happens to them.

function recorder() {
  const log: string[] = [];
  const troubles: string[] = [];
  const parts = new Parts((name, error) => troubles.push(`${name}: ${error.message}`));
  /** A part that starts (after `gate`, when given) and records its stop. */
  const part = (name: string, gate?: Promise<void>) =>
    parts.start(name, async () => {
      log.push(`start ${name}`);
      await gate;
      return () => {
        log.push(`stop ${name}`);
      };
    });
  return { log, troubles, parts, part };
}

/** A promise and the function that settles it. */
function gate() {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describe('the daemon parts', () => {
  it('stop exactly the started parts, in reverse order', async () => {
    const { log, parts, part } = recorder();
    await part('lock');
    await part('journal');
    await parts.start('config', () => undefined); // nothing to stop
    await part('socket');
    expect(parts.names()).toEqual(['lock', 'journal', 'config', 'socket']);
    await parts.stop();
    expect(log).toEqual([
      'start lock',
      'start journal',
      'start socket',
      'stop socket',
      'stop journal',
      'stop lock',
    ]);
    expect(parts.names()).toEqual([]);
  });

  it('a part failing to start in the middle: only the parts before it stop, in reverse', async () => {
    const { log, parts, part } = recorder();
    await part('lock');
    await part('journal');
    await expect(
      parts.start('socket', () => {
        log.push('start socket');
        throw new Error('address in use');
      }),
    ).rejects.toThrow('address in use');
    await parts.stop();
    expect(log).toEqual(['start lock', 'start journal', 'start socket', 'stop journal', 'stop lock']);
  });

  it('close twice: one stop of each part, the same promise', async () => {
    const { log, parts, part } = recorder();
    await part('lock');
    const first = parts.stop();
    expect(parts.stop()).toBe(first);
    await first;
    await parts.stop();
    expect(log.filter((line) => line.startsWith('stop'))).toEqual(['stop lock']);
  });

  it('a part failing to stop is reported; the others still stop', async () => {
    const { log, troubles, parts, part } = recorder();
    await part('lock');
    await parts.start('outbox', () => () => {
      throw new Error('channel stuck');
    });
    await part('socket');
    await parts.stop();
    expect(log).toEqual(['start lock', 'start socket', 'stop socket', 'stop lock']);
    expect(troubles).toEqual(['outbox: channel stuck']);
  });

  it('close while a part starts: waits for it, stops it first, and nothing more starts', async () => {
    const { log, parts, part } = recorder();
    await part('lock');
    const journal = gate();
    const starting = part('journal', journal.promise);
    const stopped = parts.stop();
    journal.open();
    await expect(starting).rejects.toBeInstanceOf(ClosedWhileStartingError);
    await stopped;
    await expect(part('socket')).rejects.toBeInstanceOf(ClosedWhileStartingError);
    expect(log).toEqual(['start lock', 'start journal', 'stop journal', 'stop lock']);
  });

  it('close while a part starts and fails: that part is not stopped', async () => {
    const { log, parts, part } = recorder();
    await part('lock');
    const journal = gate();
    const starting = parts.start('journal', async () => {
      await journal.promise;
      throw new Error('disk full');
    });
    const stopped = parts.stop();
    journal.open();
    await expect(starting).rejects.toThrow('disk full');
    await stopped;
    expect(log).toEqual(['start lock', 'stop lock']);
  });
});
