// Builds hookd's bundles with esbuild:
//   dist/hookd.cjs    the `hookd` bin: a tiny dispatcher
//   dist/hook.cjs     `hookd hook`, the agent's per-event command: Node built-ins only
//   dist/validate.cjs zod config validation, loaded by the hook only when the config changed
//   dist/scan.cjs     the JSON scanner, loaded by the hook only for input it cannot parse whole
//   dist/client.cjs   the daemon hand-off client, loaded by the hook after its commands ran
//   dist/daemon.cjs   `hookd daemon run` alone (pino, zod, chokidar; no yargs): a smaller idle daemon
//   dist/cli.cjs      every other command: the yargs front (names, descriptions, help, completion)
//   dist/commands.cjs the commands themselves (pino, zod, chokidar...), loaded when one runs
//   dist/hookd-client the native fast client (native/hookd-client.c), when a C compiler is here
//   dist/hookd-spawner the daemon's command spawner (native/hookd-spawner.c), likewise
// node-notifier stays external: it ships vendored binaries found relative to its own files.
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';

// The config cache is keyed by the schema that validated it: a new schema never reuses old results.
const configDir = 'src/config';
const schemaHash = createHash('sha256');
for (const name of readdirSync(configDir, { recursive: true }).sort()) {
  const path = `${configDir}/${name}`;
  if (path.endsWith('.ts')) schemaHash.update(name).update(readFileSync(path));
}
// hookd's version has one source, package.json: every bundle gets it as __HOOKD_VERSION__.
const { version } = JSON.parse(readFileSync('package.json', 'utf8'));
const versionDefine = { __HOOKD_VERSION__: JSON.stringify(version) };
const schemaDefine = { __HOOKD_CONFIG_SCHEMA_ID__: JSON.stringify(schemaHash.digest('hex').slice(0, 12)) };

// The OpenTelemetry project's generated protobuf code (800 KB, @opentelemetry/otlp-transformer) is read by
// the daemon and by doctor/CLI commands: one chunk, dist/otlp-proto.cjs, that both require at the first
// use, instead of a copy inlined in each bundle.
const OTLP_PROTO = '@opentelemetry/otlp-transformer/build/src/generated/root.js';
const otlpProtoChunk = {
  name: 'otlp-proto-chunk',
  setup(b) {
    b.onResolve({ filter: /^@opentelemetry\/otlp-transformer\/build\/src\/generated\/root\.js$/ }, () => ({
      path: './otlp-proto.cjs',
      external: true,
    }));
  },
};

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: false,
  legalComments: 'none',
  logLevel: 'warning',
  // ESM packages (yargs) read import.meta.url, which a CJS bundle lacks: give them this file's URL.
  banner: { js: "const __hookd_import_meta_url = require('node:url').pathToFileURL(__filename).href;" },
  define: { 'import.meta.url': '__hookd_import_meta_url', ...schemaDefine, ...versionDefine },
  // jsonc-parser's "main" is a UMD build whose require()s esbuild cannot follow: bundle its ESM build.
  // string-width, which yargs' help layout measures every cell with, is hookd's own (src/terminal/
  // string-width.ts says why): the package's start-up and measuring were most of `hookd --help`.
  alias: {
    'jsonc-parser': './node_modules/jsonc-parser/lib/esm/main.js',
    'string-width': './src/terminal/string-width.ts',
  },
  plugins: [otlpProtoChunk],
  external: [
    'node-notifier',
    './otlp-proto.cjs',
    './validate.cjs',
    './client.cjs',
    './hook.cjs',
    './cli.cjs',
    './daemon.cjs',
    './scan.cjs',
    './rare.cjs',
    './config.cjs',
    './run.cjs',
    './redact.cjs',
    './remote.cjs',
    './once.cjs',
    './kinds.cjs',
    './agents.cjs',
    './fallback.cjs',
  ],
};

// The hook bundle keeps the common event small: code an ordinary event never runs lives in chunks of its
// own (docs/performance.md, "The Node path"). Each import of such a module becomes a stub that requires
// its chunk at the first use of one of its exports, so an ordinary event never reads or compiles it:
//   dist/scan.cjs      the JSON scanner (src/events/json-scan.ts): input hookd cannot read, events over
//                      the in-memory limit;
//   dist/rare.cjs      the hook's rare paths (src/hook-path/rare.ts): unreadable input, dead letters, a
//                      config not in force;
//   dist/run.cjs       running an event's commands (src/hook-path/run-planned.ts): most events have none;
//   dist/redact.cjs    the redactor (src/logging/redact.ts), for a log record that may hold a secret;
//   dist/config.cjs    loading the config when no cached result fits (src/config/load-fresh.ts): the
//                      files' reading, the project file's trust, the last good config.
//   dist/remote.cjs    waiting for a remote answer to a permission prompt (src/hook-path/remote-ask.ts).
//   dist/once.cjs      asking the daemon whether the same event runs already (src/hook-path/once-claim.ts):
//                      an event with commands, on the Node path while a daemon is in use.
//   dist/fallback.cjs  the fast client's fallback (src/hook-path/client-fallback.ts): its stdin copy
//                      released, the id of an event a daemon acknowledged before it died;
//   dist/kinds.cjs     the agents' tool tables, for an entry that matches canonical tool kinds
//                      (src/runner/kind-match.ts).
// A chunk bundles what it imports itself: it shares no module state with dist/hook.cjs.
const HOOK_CHUNKS = [
  { source: 'src/events/json-scan.ts', test: /\/json-scan\.js$/, chunk: 'scan.cjs' },
  { source: 'src/hook-path/rare.ts', test: /\/rare\.js$/, chunk: 'rare.cjs' },
  { source: 'src/hook-path/run-planned.ts', test: /\/run-planned\.js$/, chunk: 'run.cjs' },
  { source: 'src/logging/redact.ts', test: /\/redact\.js$/, chunk: 'redact.cjs' },
  { source: 'src/config/load-fresh.ts', test: /\/load-fresh\.js$/, chunk: 'config.cjs' },
  { source: 'src/hook-path/remote-ask.ts', test: /\/remote-ask\.js$/, chunk: 'remote.cjs' },
  { source: 'src/hook-path/once-claim.ts', test: /\/once-claim\.js$/, chunk: 'once.cjs' },
  { source: 'src/runner/kind-match.ts', test: /\/kind-match\.js$/, chunk: 'kinds.cjs' },
  { source: 'src/agents/agent-rules.ts', test: /\/agent-rules\.js$/, chunk: 'agents.cjs' },
  { source: 'src/hook-path/client-fallback.ts', test: /\/client-fallback\.js$/, chunk: 'fallback.cjs' },
];
// The stub is an ES module, so the bundle keeps only the exports it uses: a function becomes a function
// that calls the chunk's, a class a class whose constructor builds the chunk's, a constant its value.
// The kinds are read from the module itself (its own bundle, evaluated here), so none can be guessed
// wrong; any other export (an object) stops the build.
function stubOf(name, value, load) {
  if (typeof value === 'function' && /^class\b/.test(Function.prototype.toString.call(value)))
    return `export class ${name} { constructor(...a) { return new (${load}().${name})(...a); } }`;
  if (typeof value === 'function') return `export function ${name}(...a) { return ${load}().${name}(...a); }`;
  if (value === null || ['string', 'number', 'boolean', 'undefined'].includes(typeof value))
    return `export const ${name} = ${value === undefined ? 'undefined' : JSON.stringify(value)};`;
  throw new Error(`export ${name} is neither a function, a class nor a constant: it cannot be lazy`);
}
const lazyChunks = {
  name: 'lazy-hook-chunks',
  setup(b) {
    for (const { test, chunk } of HOOK_CHUNKS) {
      b.onResolve({ filter: test }, () => ({ path: chunk, namespace: 'lazy' }));
    }
    b.onLoad({ filter: /.*/, namespace: 'lazy' }, async (args) => {
      const { source, chunk } = HOOK_CHUNKS.find((c) => c.chunk === args.path);
      const probe = await build({
        entryPoints: [source],
        bundle: true,
        platform: 'node',
        format: 'esm',
        write: false,
        logLevel: 'silent',
        define: schemaDefine,
        outfile: `probe-${chunk}.mjs`,
      });
      const exported = await import(
        `data:text/javascript;base64,${Buffer.from(probe.outputFiles[0].text).toString('base64')}`
      );
      const names = Object.keys(exported);
      if (names.length === 0) throw new Error(`${source} exports nothing for ${chunk}`);
      const stubs = names.map((name) => {
        try {
          return stubOf(name, exported[name], 'load');
        } catch (error) {
          throw new Error(`${source}: ${error.message}`);
        }
      });
      return {
        contents: `let m; const load = () => (m ??= require(${JSON.stringify(`./${chunk}`)}));\n${stubs.join('\n')}\n`,
        loader: 'js',
      };
    });
  },
};

// The CLI in two bundles: dist/cli.cjs, the yargs front (every command's name, description and help
// layout), and dist/commands.cjs, the commands themselves, loaded from V8's code cache only when one of
// them runs or shows its own help, so `hookd --help` and a TAB never load zod, pino or the daemon. Each
// `import('./<file>.js')` of src/cli/commands/index.ts becomes that file's exports in dist/commands.cjs.
const COMMANDS_INDEX = 'src/cli/commands/index.ts';
const commandFiles = [
  ...new Set(
    [...readFileSync(COMMANDS_INDEX, 'utf8').matchAll(/import\('(\.\/[\w/-]+\.js)'\)/g)].map((m) => m[1]),
  ),
];
const lazyCommands = {
  name: 'lazy-commands',
  setup(b) {
    b.onResolve({ filter: /^\.\/[\w/-]+\.js$/ }, (args) =>
      args.kind === 'dynamic-import' && args.importer.endsWith(COMMANDS_INDEX)
        ? { path: args.path, namespace: 'command' }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'command' }, (args) => ({
      contents:
        `const { requireCached } = require(${JSON.stringify(resolve('src/entry/code-cache.ts'))});` +
        `module.exports = requireCached(require('node:path').join(__dirname, 'commands.cjs')).modules[${JSON.stringify(args.path)}]();`,
      loader: 'js',
      resolveDir: process.cwd(),
    }));
  },
};
// Each file's code runs only when its command is loaded, not all of them with the bundle.
const commandsEntry = {
  contents: `export const modules = { ${commandFiles.map((file) => `${JSON.stringify(file)}: () => require(${JSON.stringify(file)})`).join(', ')} };\n`,
  resolveDir: 'src/cli/commands',
  sourcefile: 'commands.ts',
  loader: 'ts',
};

rmSync('dist', { recursive: true, force: true });
mkdirSync('dist');
const entries = [
  // The dispatcher and the daemon client are parsed on each event of the Node path too: minified.
  [
    'src/entry/hookd.ts',
    'dist/hookd.cjs',
    { minify: true, banner: { js: '#!/usr/bin/env node' }, define: versionDefine },
  ],
  // The hook starts once per agent event: a smaller file parses faster. It needs no import.meta shim.
  [
    'src/entry/hook.ts',
    'dist/hook.cjs',
    { minify: true, banner: {}, define: schemaDefine, plugins: [lazyChunks] },
  ],
  ...HOOK_CHUNKS.map(({ source, chunk }) => [
    source,
    `dist/${chunk}`,
    { minify: true, banner: {}, define: schemaDefine },
  ]),
  ['src/entry/validate.ts', 'dist/validate.cjs', { banner: {}, define: versionDefine }],
  ['src/entry/cli.ts', 'dist/cli.cjs', { plugins: [lazyCommands] }],
  [undefined, 'dist/commands.cjs', { stdin: commandsEntry }],
  ['src/entry/daemon.ts', 'dist/daemon.cjs', {}],
  [`node_modules/${OTLP_PROTO}`, 'dist/otlp-proto.cjs', { minify: true, banner: {}, plugins: [] }],
];
if (existsSync('src/link/client.ts'))
  entries.push(['src/link/client.ts', 'dist/client.cjs', { minify: true, banner: {} }]);
await Promise.all(
  entries.map(([entry, outfile, extra]) =>
    build({ ...common, ...(entry ? { entryPoints: [entry] } : {}), outfile, ...extra }),
  ),
);
chmodSync('dist/hookd.cjs', 0o755);

// native/hookd-wire.h: the wire constants of src/link/wire.ts for the C programs, so that both sides of
// the fast protocol and of the spawner's frames have one definition (docs/protocol.md). Written only when
// it changed; it is kept in the tree so that a build for another platform or the fuzzer finds it too.
const wireModule = await build({
  entryPoints: ['src/link/wire.ts'],
  bundle: true,
  platform: 'node',
  format: 'esm',
  write: false,
});
const { wireHeader } = await import(
  `data:text/javascript;base64,${Buffer.from(wireModule.outputFiles[0].text).toString('base64')}`
);
const wireHeaderText = wireHeader();
if (!existsSync('native/hookd-wire.h') || readFileSync('native/hookd-wire.h', 'utf8') !== wireHeaderText)
  writeFileSync('native/hookd-wire.h', wireHeaderText);

// The native programs, built when a C compiler is here, static where the libc allows it (one binary for
// any Linux libc of this machine's architecture), else dynamic:
// - dist/hookd-client, the native fast client (native/hookd-client.c; docs/hook.md, "The fast client");
//   without it install wires the Node path. HOOKD_NO_NATIVE_CLIENT=1 skips it.
// - dist/hookd-spawner, the daemon's resident spawner (native/hookd-spawner.c; docs/daemon.md, "The
//   spawner"); without it the daemon starts commands with child_process. HOOKD_NO_NATIVE_SPAWNER=1 skips it.
// No compiler: a note for each, and the fallbacks above.
const cc = process.env.CC || 'cc';
function buildNative(source, output, fallback) {
  const flags = ['-std=c99', '-O2', '-Wall', '-Wextra', '-o', output, source];
  let why = '';
  for (const args of [['-static', ...flags], flags]) {
    const r = spawnSync(cc, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    if (r.status === 0) {
      if (r.stderr.trim()) process.stderr.write(r.stderr);
      chmodSync(output, 0o755);
      return;
    }
    why = r.error ? r.error.message : r.stderr.trim().split('\n')[0];
    rmSync(output, { force: true });
  }
  console.log(`hookd: ${output} not built (${cc}: ${why}); ${fallback}`);
}
if (process.env.HOOKD_NO_NATIVE_CLIENT === '1')
  console.log(
    'hookd: native fast client not built (HOOKD_NO_NATIVE_CLIENT=1); hookd install wires the Node path',
  );
else buildNative('native/hookd-client.c', 'dist/hookd-client', 'hookd install wires the Node path');
if (process.env.HOOKD_NO_NATIVE_SPAWNER === '1')
  console.log(
    'hookd: spawner not built (HOOKD_NO_NATIVE_SPAWNER=1); the daemon starts commands with child_process',
  );
else
  buildNative(
    'native/hookd-spawner.c',
    'dist/hookd-spawner',
    'the daemon starts commands with child_process',
  );
