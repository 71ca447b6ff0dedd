/**
 * Waits for a condition that another process or a timer makes true: polls `check` until it returns a
 * truthy value (which it returns), and fails with "timed out waiting for <what>" after `timeoutMs`. The
 * timeout only bounds a test that would otherwise hang; it never decides a result.
 */
export async function waitFor<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 10_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The same wait, answered as true (the condition came) or false (it did not, within `timeoutMs`). */
export async function becomes(check: () => boolean, timeoutMs = 5_000): Promise<boolean> {
  return waitFor(check, timeoutMs).then(
    () => true,
    () => false,
  );
}
