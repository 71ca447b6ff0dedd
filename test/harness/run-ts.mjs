// Runs one TypeScript file of the test harness with plain node (Node 20 runs no TypeScript): bundles it
// with esbuild into a temp dir under node_modules/.cache, each file keeping its own import.meta.url (the harness finds its parts
// beside itself), runs it with the arguments given, removes the bundle.
//   node test/harness/run-ts.mjs test/harness/record-otlp.ts <args...>
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const [entry, ...args] = process.argv.slice(2);
if (!entry) throw new Error('usage: node test/harness/run-ts.mjs <file.ts> [args...]');
const { version } = JSON.parse(readFileSync('package.json', 'utf8'));
// Inside node_modules, so the bundle finds the packages it leaves external.
mkdirSync(join('node_modules', '.cache'), { recursive: true });
const dir = mkdtempSync(join('node_modules', '.cache', 'run-ts-'));
try {
  const outfile = join(dir, 'run.mjs');
  await build({
    entryPoints: [resolve(entry)],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'error',
    define: { __HOOKD_VERSION__: JSON.stringify(version) },
    plugins: [
      {
        name: 'own-import-meta-url',
        setup(b) {
          b.onLoad({ filter: /\.ts$/ }, (file) => ({
            contents: readFileSync(file.path, 'utf8').replaceAll(
              'import.meta.url',
              JSON.stringify(pathToFileURL(file.path).href),
            ),
            loader: 'ts',
          }));
        },
      },
    ],
  });
  const ran = spawnSync(process.execPath, [outfile, ...args], { stdio: 'inherit' });
  process.exitCode = ran.status ?? 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
