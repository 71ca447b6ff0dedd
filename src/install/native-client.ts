import { hookdLocation, nativeCandidates, platformPackageName } from '../util/hookd-location.js';
import type { Env } from '../paths.js';
import {
  MISSING_BUILD,
  nativeClientProblem,
  type ClientRange,
  type NativeClientProblem,
} from './transport.js';

/** The native client install wires, or why there is none to wire (with the place it would have been). */
export interface NativeClientChoice {
  path: string;
  problem?: NativeClientProblem;
}

/**
 * The native client of the hookd at `hookdPath`, chosen at install time: the first place of
 * nativeCandidates (HOOKD_NATIVE_DIR, dist/, the platform package) whose client is a file nobody else
 * can write to and answers the version probe with a version this hookd's daemon serves. When none does,
 * the reason of the first client that is there (it does not run here, or speaks another version), else
 * where a client was looked for.
 */
export function chooseNativeClient(
  hookdPath: string,
  range: ClientRange,
  env: Env = process.env,
  platform: string = process.platform,
  arch: string = process.arch,
): NativeClientChoice {
  const candidates = nativeCandidates('hookd-client', {
    location: hookdLocation(hookdPath),
    env,
    platform,
    arch,
  });
  let first: NativeClientChoice | undefined;
  for (const candidate of candidates) {
    if (candidate.problem) {
      if (candidate.problem !== 'not there')
        first ??= {
          path: candidate.path,
          problem: { broken: false, text: `${candidate.path} is ${candidate.problem}` },
        };
      continue;
    }
    const problem = nativeClientProblem(candidate.path, range);
    if (!problem) return { path: candidate.path };
    first ??= { path: candidate.path, problem };
  }
  if (first) return first;
  const [build, ...packages] = candidates;
  const text =
    build!.source === 'override'
      ? `$HOOKD_NATIVE_DIR has no hookd-client (${build!.path})`
      : `${build!.path} ${MISSING_BUILD}, and there is no ${platformPackageName(platform, arch)} package (${packages.map((c) => c.path).join(' or ')})`;
  return { path: candidates[0]!.path, problem: { broken: false, text } };
}
