import { writeFileSync } from 'node:fs';

/**
 * Writes a hookd config with no notifications and the OTLP receiver on at `port`; `receiver` adds to
 * its settings (e.g. `forward`).
 */
export function writeReceiverConfig(
  file: string,
  port: number,
  receiver: Record<string, unknown> = {},
): void {
  writeFileSync(
    file,
    JSON.stringify({
      notify: { channels: {}, rules: [] },
      enrich: { gitBranch: false },
      telemetry: { receiver: { enabled: true, port, ...receiver } },
    }),
  );
}
