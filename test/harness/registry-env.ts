/**
 * NODE_EXTRA_CA_CERTS, set aside for the steps that reach the npm registry.
 *
 * Where it is set (as on machines that reach the registry through a proxy with its own certificate
 * authority), every Node process reads and parses that whole bundle before it runs a line: tens of
 * milliseconds each, and the tests start thousands of Node processes (hooks, daemons, CLIs, agents).
 * None of them talks TLS: each talks to a local server or a unix socket. Only the steps that fetch from
 * the npm registry do (the e2e setup installing the pinned agents, the package tests' `npm install` and
 * the Zig download of `scripts/build-platforms.mjs`). vitest.config.ts therefore calls
 * `setAsideCaCerts()` before any test process starts, and those steps run with `registryEnv()`.
 */

/** Where the variable is kept while the tests run (HOOKD_*: isolatedEnv leaves it out of test envs). */
export const KEPT_CA_CERTS = 'HOOKD_TEST_NODE_EXTRA_CA_CERTS';

/** Moves NODE_EXTRA_CA_CERTS out of `env` into KEPT_CA_CERTS. Safe to call more than once. */
export function setAsideCaCerts(env: NodeJS.ProcessEnv = process.env): void {
  const value = env.NODE_EXTRA_CA_CERTS;
  if (value === undefined) return;
  env[KEPT_CA_CERTS] = value;
  delete env.NODE_EXTRA_CA_CERTS;
}

/** `env` with NODE_EXTRA_CA_CERTS back as it was set: the environment of a step that uses the registry. */
export function registryEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const kept = env[KEPT_CA_CERTS];
  return kept === undefined ? { ...env } : { ...env, NODE_EXTRA_CA_CERTS: kept };
}
