/**
 * The real Droid CLI for the e2e tests: the project's own harness (test/harness/droid/), re-exported
 * under the name the tests have always used.
 */
export { runRealDroid, type DroidRun, type DroidRunOptions } from '../harness/droid/run.js';
export type { FakeStep } from '../harness/droid/script.js';
