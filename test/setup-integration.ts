import { HOOKD_BIN } from './helpers/fixtures.js';

// Integration files share the modules of their worker (no per-file isolation). hookd finds the program it
// runs as from process.argv[1] once per process and keeps it (src/util/hookd-location.ts), so whatever ran
// first in a worker would decide it for every later file: a daemon that `hookd daemon start`, run
// in-process, starts as vitest's worker script. Each worker is the built hookd (dist/hookd.cjs) from its
// first file on, as runCli makes it for each command it runs (test/helpers/cli-run.ts).
process.argv[1] = HOOKD_BIN;
