import type { NotifyConfig } from '../config/schemas/notify-schema.js';
import { releaseHeld } from '../notify/digest.js';
import type { DaemonStore, JournalRecord } from './store.js';

export interface DigestOptions {
  store: Pick<DaemonStore, 'heldDue'>;
  /** The notify config in force (quiet hours, whether to digest). */
  notify: () => NotifyConfig;
  commit: (records: JournalRecord[]) => Promise<void>;
  wake: (channels: Iterable<string>) => void;
  now: () => number;
}

/**
 * Releases held notifications whose time came (quiet hours ended, a "waiting" delay ran out) as
 * releaseHeld() (src/notify/digest.ts) decides: records them in the journal and wakes the outbox.
 */
export class Digest {
  readonly counts = { digests: 0 };

  constructor(private readonly o: DigestOptions) {}

  async releaseHeld(): Promise<void> {
    const { o } = this;
    const at = o.now();
    const { releases, channels } = releaseHeld(o.store.heldDue(at), o.notify().quietHours, at);
    if (channels.length === 0) return;
    const records = releases.flatMap((r): JournalRecord[] => {
      if (r.t === 'unhold') return [{ t: 'unhold', ids: r.ids, at }];
      this.counts.digests++;
      return [
        { t: 'add', d: r.delivery },
        { t: 'release', ids: r.ids, at },
      ];
    });
    await o.commit(records);
    o.wake(channels);
  }
}
