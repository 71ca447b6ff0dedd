import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';
import type { OtlpSidecarConfig } from './otlp-recorder.js';
import type { SidecarSpec } from './sidecar.js';

export type { OtlpSidecarConfig, RecordedRequest } from './otlp-recorder.js';

const HERE = dirname(fileURLToPath(import.meta.url));

/** The sidecar spec that runs otlp-recorder.ts (bundled into `outDir`, Node 20 runs no TypeScript) with `config`. */
export function otlpSidecar(outDir: string, config: OtlpSidecarConfig): SidecarSpec {
  mkdirSync(outDir, { recursive: true });
  const bundle = join(outDir, 'otlp-recorder.cjs');
  buildSync({
    entryPoints: [join(HERE, 'otlp-recorder.ts')],
    outfile: bundle,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    logLevel: 'error',
  });
  const configFile = join(outDir, 'otlp-recorder.json');
  writeFileSync(configFile, JSON.stringify(config));
  return {
    argv: [process.execPath, bundle, configFile],
    env: { ...(config.child?.env ?? {}) },
    readyFile: config.readyFile,
  };
}
