import { mkdir, readFile, rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { CliError, EXIT, UsageError } from '../errors.js';
import { logDir, type Env } from '../paths.js';
import { LAUNCHD_LABEL, renderLaunchdPlist } from './launchd-plist.js';
import { renderSystemdUnit, SYSTEMD_UNIT_NAME } from './systemd-unit.js';
import { writePrivateFileAtomic } from '../util/private-fs.js';
import { findOnPath } from '../util/find-on-path.js';
import { runProcess } from '../process/run.js';

export type ServicePlatform = 'linux' | 'darwin';

/** How a service-manager command ended; a failure is a value. */
export interface RunResult {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  /** Set when the program could not be started (e.g. ENOENT: systemctl is not installed). */
  spawnError?: string;
}

export type ServiceRunner = (file: string, args: readonly string[], env: Env) => Promise<RunResult>;

export interface ServiceOptions {
  platform?: string;
  env?: Env;
  /** Absolute hookd program (default: the one running). */
  hookdPath: string;
  /** Absolute node (default: the one running). */
  nodePath?: string;
  /** Absolute folders to put first in the service's PATH. */
  extraPath?: readonly string[];
  /** Run systemctl / launchctl to enable and start (install) or stop and disable (uninstall). */
  enable?: boolean;
  run?: ServiceRunner;
  /** For launchd's gui/<uid> domain. */
  uid?: number;
}

export interface ServiceStep {
  command: string;
  exitCode: number | null;
  stderr?: string;
  spawnError?: string;
}

export interface ServiceResult {
  platform: ServicePlatform;
  file: string;
  /** The file was written (install) or removed (uninstall). */
  changed: boolean;
  steps: ServiceStep[];
  /** False when --no-enable was given or the service manager is not there. */
  managed: boolean;
  notes: string[];
}

const RUN_TIMEOUT_MS = 30_000;

/** What is kept of a service-manager command's output (systemctl and launchctl say little). */
const RUN_OUTPUT_BYTES = 256 * 1024;

/**
 * Runs a service-manager command with a deadline (its process group killed when it passes); never
 * throws: a start error, a timeout and the exit code are values.
 */
export const runServiceCommand: ServiceRunner = async (file, args, env) => {
  // systemctl and launchctl from an absolute folder of PATH only: a relative entry (node_modules/.bin)
  // would let the folder hookd runs in, often a repository, put its own there.
  const program = isAbsolute(file) ? file : findOnPath(file, env.PATH);
  if (program === undefined)
    return {
      exitCode: null,
      stdout: '',
      stderr: '',
      spawnError: `ENOENT: ${file} is not in an absolute folder of PATH`,
    };
  const ran = await runProcess({
    command: [program, ...args],
    env: { ...process.env, ...env },
    timeoutMs: RUN_TIMEOUT_MS,
    killGraceMs: 0,
    maxOutputBytes: RUN_OUTPUT_BYTES,
  });
  const result: RunResult = { exitCode: ran.exitCode, stdout: ran.stdout.text(), stderr: ran.stderr.text() };
  // Node says why a start failed as `spawn <file> <code>`: the code goes first, as callers match on it.
  if (ran.spawnError !== undefined)
    result.spawnError = `${/ (E[A-Z]+)$/.exec(ran.spawnError)?.[1] ?? 'ESPAWN'}: ${ran.spawnError}`;
  return result;
};

export function servicePlatform(platform: string | undefined = process.platform): ServicePlatform {
  if (platform === 'linux' || platform === 'darwin') return platform;
  throw new UsageError(
    `no login service for platform "${platform}"`,
    'hookd can write a systemd user unit (linux) or a launchd agent (darwin); start `hookd daemon run` yourself elsewhere.',
  );
}

/** Where the unit or agent file goes: $XDG_CONFIG_HOME/systemd/user/hookd.service or ~/Library/LaunchAgents/dev.hookd.daemon.plist. */
export function serviceFilePath(platform: ServicePlatform, env: Env): string {
  const home = env.HOME || homedir();
  if (platform === 'darwin') return join(home, 'Library', 'LaunchAgents', `${LAUNCHD_LABEL}.plist`);
  return join(env.XDG_CONFIG_HOME || join(home, '.config'), 'systemd', 'user', SYSTEMD_UNIT_NAME);
}

async function readIfExists(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new CliError(`cannot read ${file} (${(error as Error).message})`);
  }
}

async function writeAtomically(file: string, text: string): Promise<void> {
  try {
    await mkdir(dirname(file), { recursive: true });
    writePrivateFileAtomic(file, text, { ensureDir: false });
  } catch (error) {
    throw new CliError(
      `cannot write ${file} (${(error as Error).message})`,
      EXIT.FAILURE,
      'Check that the folder is writable.',
    );
  }
}

async function step(
  run: ServiceRunner,
  env: Env,
  file: string,
  args: string[],
  steps: ServiceStep[],
): Promise<RunResult> {
  const result = await run(file, args, env);
  steps.push({
    command: [file, ...args].join(' '),
    exitCode: result.exitCode,
    ...(result.stderr.trim() ? { stderr: result.stderr.trim() } : {}),
    ...(result.spawnError ? { spawnError: result.spawnError } : {}),
  });
  return result;
}

function managerCommands(platform: ServicePlatform, file: string, uid: number) {
  if (platform === 'linux') {
    return {
      tool: 'systemctl',
      start: [
        ['--user', 'daemon-reload'],
        ['--user', 'enable', '--now', SYSTEMD_UNIT_NAME],
      ],
      stop: [['--user', 'disable', '--now', SYSTEMD_UNIT_NAME]],
      afterRemove: [['--user', 'daemon-reload']],
    };
  }
  return {
    tool: 'launchctl',
    // bootout first so a changed plist is picked up; its failure (not loaded) is expected
    start: [
      ['bootout', `gui/${uid}/${LAUNCHD_LABEL}`],
      ['bootstrap', `gui/${uid}`, file],
    ],
    stop: [['bootout', `gui/${uid}/${LAUNCHD_LABEL}`]],
    afterRemove: [],
  };
}

function stepFailed(result: RunResult): boolean {
  return result.spawnError !== undefined || result.exitCode !== 0;
}

/**
 * Writes the login service for `hookd daemon run` (systemd user unit on Linux, launchd agent on macOS)
 * and, unless told not to, enables and starts it. Writing the same file again changes nothing.
 */
export async function installService(options: ServiceOptions): Promise<ServiceResult> {
  const platform = servicePlatform(options.platform);
  const env = options.env ?? process.env;
  const file = serviceFilePath(platform, env);
  for (const dir of options.extraPath ?? [])
    if (!isAbsolute(dir) || dir.includes(':'))
      throw new UsageError(
        `--path ${JSON.stringify(dir)} is not an absolute folder`,
        'Give each folder for the service PATH as an absolute path, e.g. --path "$HOME/.local/bin".',
      );
  const spec = {
    nodePath: resolve(options.nodePath ?? process.execPath),
    hookdPath: resolve(options.hookdPath),
    env,
    ...(options.extraPath ? { extraPath: options.extraPath } : {}),
  };
  const text =
    platform === 'linux' ? renderSystemdUnit(spec) : renderLaunchdPlist({ ...spec, logDir: logDir(env) });
  const changed = (await readIfExists(file)) !== text;
  if (changed) await writeAtomically(file, text);
  if (platform === 'darwin') await mkdir(logDir(env), { recursive: true });
  const steps: ServiceStep[] = [];
  const notes: string[] = [];
  if (options.enable === false) {
    notes.push('not enabled (--no-enable): start it with ' + startHint(platform, file));
    return { platform, file, changed, steps, managed: false, notes };
  }
  const run = options.run ?? runServiceCommand;
  const commands = managerCommands(platform, file, options.uid ?? process.getuid?.() ?? 0);
  for (const [index, args] of commands.start.entries()) {
    const result = await step(run, env, commands.tool, args, steps);
    if (result.spawnError?.startsWith('ENOENT')) {
      notes.push(`${commands.tool} was not found; start the service yourself: ${startHint(platform, file)}`);
      return { platform, file, changed, steps, managed: false, notes };
    }
    const mayFail = platform === 'darwin' && index === 0;
    if (stepFailed(result) && !mayFail) {
      throw new CliError(
        `the service file ${file} was written, but \`${steps.at(-1)!.command}\` failed` +
          `${result.stderr.trim() ? `: ${result.stderr.trim()}` : ` (exit ${result.exitCode})`}`,
        EXIT.FAILURE,
        `Run it yourself, or use --no-enable and start it with: ${startHint(platform, file)}`,
      );
    }
  }
  return { platform, file, changed, steps, managed: true, notes };
}

/** Stops and disables the login service (unless told not to) and removes exactly its file. */
export async function uninstallService(
  options: Omit<ServiceOptions, 'hookdPath' | 'nodePath'>,
): Promise<ServiceResult> {
  const platform = servicePlatform(options.platform);
  const env = options.env ?? process.env;
  const file = serviceFilePath(platform, env);
  const exists = (await readIfExists(file)) !== undefined;
  const steps: ServiceStep[] = [];
  const notes: string[] = [];
  const run = options.run ?? runServiceCommand;
  const commands = managerCommands(platform, file, options.uid ?? process.getuid?.() ?? 0);
  let managed = false;
  if (exists && options.enable !== false) {
    for (const args of commands.stop) {
      const result = await step(run, env, commands.tool, args, steps);
      if (result.spawnError?.startsWith('ENOENT'))
        notes.push(`${commands.tool} was not found; nothing to stop`);
      else managed = true;
    }
  }
  if (exists) {
    try {
      await rm(file);
    } catch (error) {
      throw new CliError(
        `cannot remove ${file} (${(error as Error).message})`,
        EXIT.FAILURE,
        'Remove it yourself.',
      );
    }
    if (managed) for (const args of commands.afterRemove) await step(run, env, commands.tool, args, steps);
  } else notes.push(`no service file at ${file}; nothing to remove`);
  return { platform, file, changed: exists, steps, managed, notes };
}

/**
 * Restarts the daemon through the login service when the service manager runs it (systemd: the unit is
 * active; launchd: the agent is loaded), so it stays under its supervision (and its journal). Undefined
 * when no login service runs it: no service file, not active, or no service manager here.
 */
export async function restartService(
  options: Omit<ServiceOptions, 'hookdPath' | 'nodePath' | 'enable'>,
): Promise<ServiceStep[] | undefined> {
  const named = options.platform ?? process.platform;
  if (named !== 'linux' && named !== 'darwin') return undefined;
  const platform = servicePlatform(named);
  const env = options.env ?? process.env;
  const file = serviceFilePath(platform, env);
  if ((await readIfExists(file)) === undefined) return undefined;
  const run = options.run ?? runServiceCommand;
  const target = `gui/${options.uid ?? process.getuid?.() ?? 0}/${LAUNCHD_LABEL}`;
  const [tool, probe, restart] =
    platform === 'linux'
      ? [
          'systemctl',
          ['--user', 'is-active', '--quiet', SYSTEMD_UNIT_NAME],
          ['--user', 'restart', SYSTEMD_UNIT_NAME],
        ]
      : ['launchctl', ['print', target], ['kickstart', '-k', target]];
  const steps: ServiceStep[] = [];
  if (stepFailed(await step(run, env, tool, probe, steps))) return undefined;
  const result = await step(run, env, tool, restart, steps);
  if (stepFailed(result))
    throw new CliError(
      `\`${steps.at(-1)!.command}\` failed${result.stderr.trim() ? `: ${result.stderr.trim()}` : ` (exit ${result.exitCode})`}`,
      EXIT.FAILURE,
      platform === 'linux'
        ? `See \`systemctl --user status ${SYSTEMD_UNIT_NAME}\` and \`journalctl --user -u ${SYSTEMD_UNIT_NAME}\`.`
        : `See ${join(logDir(env), 'daemon.stderr.log')}.`,
    );
  return steps;
}

function startHint(platform: ServicePlatform, file: string): string {
  return platform === 'linux'
    ? `systemctl --user daemon-reload && systemctl --user enable --now ${SYSTEMD_UNIT_NAME}`
    : `launchctl bootstrap gui/$(id -u) ${file}`;
}
