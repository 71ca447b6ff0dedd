import type { Logger } from 'pino';
import type { Env } from '../../paths.js';
import {
  createPresenceProbe,
  type PresenceProbe,
  type PresenceReading,
  type PresenceSetting,
} from '../../notify/presence.js';

export interface PresenceCacheOptions {
  env: Env;
  now: () => number;
  logger: Pick<Logger, 'info'>;
  /** The presence settings in force (notify.presence); read at every use, so a reload takes effect. */
  settings: () => { source: PresenceSetting; idleAfterMs: number };
}

/**
 * Presence at this machine for `presence: auto` rules (docs/sessions.md#presence): the probe of the
 * settings in force, made anew when they change, its detected source logged once per probe.
 */
export class PresenceCache {
  private current: { key: string; probe: PresenceProbe } | undefined;

  constructor(private readonly o: PresenceCacheOptions) {}

  /** The probe of the settings in force. */
  probe(): PresenceProbe {
    const { source, idleAfterMs } = this.o.settings();
    const key = `${source}/${idleAfterMs}`;
    if (this.current?.key !== key) {
      const probe = createPresenceProbe({
        env: this.o.env,
        now: this.o.now,
        source,
        thresholdMs: idleAfterMs,
      });
      this.current = { key, probe };
      void probe.detect().then((detection) => this.o.logger.info({ presence: detection }, 'presence source'));
    }
    return this.current.probe;
  }

  /** A reading of the probe in force (never throws; bounded by the probe's deadline). */
  read(): Promise<PresenceReading> {
    return this.probe().read();
  }
}
