import { daemonMain } from '../daemon/lifecycle/main.js';

/** Entry of dist/daemon.cjs: `hookd daemon run` without the rest of the CLI. */
export async function daemonBinMain(): Promise<void> {
  process.exitCode = await daemonMain(process.env);
}
