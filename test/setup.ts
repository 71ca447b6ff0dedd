// Node warnings fail the suite: a warning is a bug we have not understood yet. Unit test files share a
// worker (no isolation), so this file runs once per test file in the same process: the listener is added
// once.
const FLAG = Symbol.for('hookd.test.warning-listener');
const registry = globalThis as { [FLAG]?: true };
if (!registry[FLAG]) {
  registry[FLAG] = true;
  process.on('warning', (warning) => {
    throw warning;
  });
}
