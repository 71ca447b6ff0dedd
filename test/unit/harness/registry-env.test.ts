import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { KEPT_CA_CERTS, registryEnv, setAsideCaCerts } from '../../harness/registry-env.js';

describe('NODE_EXTRA_CA_CERTS is kept for the steps that use the npm registry', () => {
  it('is moved aside once, and given back to a registry step only', () => {
    const env: NodeJS.ProcessEnv = { PATH: '/bin', NODE_EXTRA_CA_CERTS: '/etc/ca.pem' };
    setAsideCaCerts(env);
    expect(env).toEqual({ PATH: '/bin', [KEPT_CA_CERTS]: '/etc/ca.pem' });
    setAsideCaCerts(env);
    expect(env).toEqual({ PATH: '/bin', [KEPT_CA_CERTS]: '/etc/ca.pem' });
    expect(registryEnv(env)).toEqual({
      PATH: '/bin',
      [KEPT_CA_CERTS]: '/etc/ca.pem',
      NODE_EXTRA_CA_CERTS: '/etc/ca.pem',
    });
    expect(env.NODE_EXTRA_CA_CERTS).toBeUndefined();
  });

  it('is left alone where it was never set', () => {
    const env: NodeJS.ProcessEnv = { PATH: '/bin' };
    setAsideCaCerts(env);
    expect(env).toEqual({ PATH: '/bin' });
    expect(registryEnv(env)).toEqual({ PATH: '/bin' });
  });

  it('is not in the environment of the test processes, nor of the processes they start', () => {
    expect(process.env.NODE_EXTRA_CA_CERTS).toBeUndefined();
    const child = spawnSync(process.execPath, ['-p', 'process.env.NODE_EXTRA_CA_CERTS ?? "unset"'], {
      encoding: 'utf8',
    });
    expect(child.stdout.trim()).toBe('unset');
  });
});
