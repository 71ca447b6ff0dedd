import { result, type CheckResult } from '../../types.js';

/** The oldest Node hookd supports (package.json `engines.node`). */
export const MIN_NODE_VERSION = '20.19.0';

function parts(version: string): [number, number, number] | undefined {
  const match = /^v?(\d+)\.(\d+)\.(\d+)/.exec(version.trim());
  return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : undefined;
}

/** True when `version` is at least `minimum` (both `major.minor.patch`, an optional leading `v`). */
export function isAtLeast(version: string, minimum: string): boolean {
  const a = parts(version);
  const b = parts(minimum);
  if (!a || !b) return false;
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i]! > b[i]!;
  return true;
}

export function checkNodeVersion(version: string): CheckResult {
  const title = 'Node.js version';
  const shown = version.startsWith('v') ? version : `v${version}`;
  if (isAtLeast(version, MIN_NODE_VERSION))
    return result('node', title, 'ok', `${shown} (hookd needs >= ${MIN_NODE_VERSION})`);
  return result(
    'node',
    title,
    'fail',
    `${shown} is older than ${MIN_NODE_VERSION}, the oldest Node hookd supports`,
    `install Node ${MIN_NODE_VERSION} or newer (e.g. \`nvm install 20\`), and make sure the agent's PATH finds it`,
  );
}
