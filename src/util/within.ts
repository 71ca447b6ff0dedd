/** Resolves with `fallback` when `promise` has not settled by `ms`, or when it rejects. */
export function within<T>(promise: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(fallback), ms);
  });
  return Promise.race([promise.catch(() => fallback), deadline]).finally(() => clearTimeout(timer));
}
