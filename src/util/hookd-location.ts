import { readFileSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

// Where this hookd is, and where its native programs are. npm puts `hookd` on PATH as a symlink
// (<prefix>/bin/hookd -> ../lib/node_modules/@hookd-dev/hookd/dist/hookd.cjs), and `npm link` adds a
// second one to the clone, so the path hookd was started by says nothing about where its files are:
// every place that needs them asks here, where the path is resolved once, symlinks and all.
// On the hook's start-up path: Node built-ins only.

/** The npm scope of hookd's packages: the main package and one package of native programs per platform. */
export const HOOKD_SCOPE = '@hookd-dev';
/** The main package's name. */
export const HOOKD_PACKAGE = `${HOOKD_SCOPE}/hookd`;

/** The environment variable naming a folder that holds hookd-client and hookd-spawner, used instead of any other. */
export const NATIVE_DIR_VARIABLE = 'HOOKD_NATIVE_DIR';

/** The native programs: the fast client (native/hookd-client.c) and the daemon's spawner (native/hookd-spawner.c). */
export type NativeProgram = 'hookd-client' | 'hookd-spawner';

/**
 * In a packed main package, `dist/<this>`: the sha256 of each program of each platform package it was
 * packed with (scripts/package.mjs), `{ "linux-x64": { "hookd-client": "<hex>", ... }, ... }`. A platform
 * package's program is used only when it is that build: not one of another version, nor a package of
 * that name from someone else (the registry's names are first come, first served).
 */
export const NATIVE_SUMS_FILE = 'native-programs.json';

/** Where this hookd's files are, every symlink resolved. */
export interface HookdLocation {
  /** The hookd program (`<root>/dist/hookd.cjs`). */
  program: string;
  /** The folder of the bundles and of natively built programs (`<root>/dist`). */
  dist: string;
  /** The package's folder. */
  root: string;
  /** The example hook commands that configs reach through $HOOKD_HOOKS_DIR (`<root>/hooks`). */
  hooks: string;
}

/** `path` made absolute with every symlink resolved; as given (made absolute) when it cannot be resolved. */
export function realPath(path: string): string {
  const absolute = resolve(path);
  try {
    return realpathSync.native(absolute);
  } catch {
    return absolute;
  }
}

function locate(program: string): HookdLocation {
  const real = realPath(program);
  const dist = dirname(real);
  const root = dirname(dist);
  return { program: real, dist, root, hooks: join(root, 'hooks') };
}

/** The last running program resolved, with the process.argv[1] it was resolved from. */
let running: { argv1: string; location: HookdLocation } | undefined;

/**
 * Where the hookd being run is (from process.argv[1], resolved once for each value it has: a process
 * that runs hookd's commands in-process as another program, as a test runner does, gets that program's
 * files), or where the hookd program at `program` is.
 */
export function hookdLocation(program?: string): HookdLocation {
  if (program !== undefined) return locate(program);
  const argv1 = process.argv[1] ?? 'hookd';
  if (running?.argv1 !== argv1) running = { argv1, location: locate(argv1) };
  return running.location;
}

/** The package of native programs for a platform: `@hookd-dev/hookd-linux-x64` and the like. */
export function platformPackageName(
  platform: string = process.platform,
  arch: string = process.arch,
): string {
  return `${HOOKD_SCOPE}/hookd-${platform}-${arch}`;
}

/** One place a native program may be, and why it cannot be used from there (undefined: it can). */
export interface NativeCandidate {
  path: string;
  /** override: HOOKD_NATIVE_DIR; build: compiled into dist/ by `npm run build`; package: the platform package. */
  source: 'override' | 'build' | 'package';
  problem?: string;
}

/**
 * Why the program at `path` is not one to run (undefined when it is): it must be a regular executable
 * file that belongs to this user or to root and that nobody else can write to (the agent runs it on
 * every event, so a file another user can replace would run their code as this user).
 */
export function nativeFileProblem(path: string): string | undefined {
  let st;
  try {
    st = statSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? 'not there' : `cannot be checked (${code ?? (error as Error).message})`;
  }
  if (!st.isFile()) return 'not a regular file';
  if ((st.mode & 0o111) === 0) return 'not executable';
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  if (uid !== undefined && st.uid !== uid && st.uid !== 0) return `owned by another user (uid ${st.uid})`;
  if ((st.mode & 0o022) !== 0) return `writable by others (mode ${(st.mode & 0o7777).toString(8)})`;
  return undefined;
}

/** The sums file's bound: four platforms of two programs are far below it. */
const MAX_SUMS_BYTES = 64 * 1024;

/**
 * Why a platform package's program is not the one this hookd was packed with (undefined when it is, and
 * when this hookd has no sums file: a clone, whose `npm install` never installs a platform package).
 */
function packedBuildProblem(
  path: string,
  location: HookdLocation,
  platform: string,
  name: NativeProgram,
): string | undefined {
  const sums = join(location.dist, NATIVE_SUMS_FILE);
  let expected: unknown;
  try {
    if (statSync(sums).size > MAX_SUMS_BYTES) return `${sums} is too large to be hookd's`;
    expected = (
      JSON.parse(readFileSync(sums, 'utf8')) as Record<string, Record<string, unknown> | undefined>
    )[platform]?.[name];
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return `${sums} cannot be read (${(error as Error).message})`;
  }
  if (typeof expected !== 'string')
    return `not a program this hookd was packed with (${sums} names none for ${platform})`;
  // Loaded here, not at start-up: this module is on the hook's path, which loads no node:crypto.
  const { createHash } = process.getBuiltinModule('node:crypto');
  const actual = createHash('sha256').update(readFileSync(path)).digest('hex');
  return actual === expected
    ? undefined
    : "not the build this hookd was packed with (another version, or not hookd's)";
}

/**
 * Where a native program of the hookd at `location` may be, in the order they are tried:
 * - `$HOOKD_NATIVE_DIR/<name>` alone, when the variable is set (a folder of programs built by hand);
 * - `<root>/dist/<name>`, built by `npm run build` where a C compiler was (a clone);
 * - the platform package, where npm installs it: in the package's own node_modules, or beside the
 *   package in the same `@hookd-dev` folder (npm's hoisting, a global install of both tarballs, pnpm),
 *   when it is the build this hookd was packed with (NATIVE_SUMS_FILE).
 * Each comes with why it cannot be used, if it cannot; the caller probes the first usable one.
 */
export function nativeCandidates(
  name: NativeProgram,
  options: {
    location?: HookdLocation;
    env?: Record<string, string | undefined>;
    platform?: string;
    arch?: string;
  } = {},
): NativeCandidate[] {
  const env = options.env ?? process.env;
  const location = options.location ?? hookdLocation();
  const key = `${options.platform ?? process.platform}-${options.arch ?? process.arch}`;
  const check = (path: string, source: NativeCandidate['source']): NativeCandidate => {
    const problem =
      nativeFileProblem(path) ??
      (source === 'package' ? packedBuildProblem(path, location, key, name) : undefined);
    return problem ? { path, source, problem } : { path, source };
  };
  const override = env[NATIVE_DIR_VARIABLE];
  if (override) return [check(join(resolve(override), name), 'override')];
  const pkg = platformPackageName(options.platform, options.arch);
  const candidates = [
    check(join(location.dist, name), 'build'),
    check(join(location.root, 'node_modules', pkg, 'bin', name), 'package'),
  ];
  const scopeDir = dirname(location.root);
  if (basename(scopeDir) === HOOKD_SCOPE)
    candidates.push(check(join(dirname(scopeDir), pkg, 'bin', name), 'package'));
  return candidates;
}

/** The first usable place of a native program (undefined when there is none). */
export function nativeProgramPath(
  name: NativeProgram,
  options: Parameters<typeof nativeCandidates>[1] = {},
): string | undefined {
  return nativeCandidates(name, options).find((c) => !c.problem)?.path;
}
