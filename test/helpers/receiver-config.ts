import { writeFileSync } from 'node:fs';

/** Writes a hookd config with no notifications and the OTLP receiver on at `port`. */
export function writeReceiverConfig(file: string, port: number): void {
  writeFileSync(
    file,
    JSON.stringify({
      notify: { channels: {}, rules: [] },
      enrich: { gitBranch: false },
      telemetry: { receiver: { enabled: true, port } },
    }),
  );
}
