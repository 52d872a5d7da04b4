/**
 * Settles like `p`, or rejects with `new Error(message)` after `ms` milliseconds, whichever comes first.
 * The work of `p` goes on; its later outcome is ignored (a late rejection is swallowed, never unhandled).
 * Used where a client library offers no deadline of its own (queue connections and closes).
 */
export function withTimeout<T>(p: Promise<T>, ms: number, message: string): Promise<T> {
  p.catch(() => undefined);
  return new Promise<T>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(message)), ms);
    p.then(
      (v) => {
        clearTimeout(t);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(t);
        reject(e);
      },
    );
  });
}
