/**
 * What a Durable Object keeps in memory of its own storage (the chain's tip, the run's row),
 * so a call need not read it back. Each holds only while every write of what it keeps goes
 * through the object's methods, each in one transaction that forgets it when it fails.
 */

/** Something kept of storage, which can be forgotten (read from storage again when needed). */
export interface Kept {
  forget(): void;
}

/** Run `f` in one transaction of `storage`; when it throws (rolled back), `kept` is forgotten. */
export function within<T>(storage: DurableObjectStorage, f: () => T, kept: readonly Kept[]): T {
  try {
    return storage.transactionSync(f);
  } catch (e) {
    for (const k of kept) k.forget();
    throw e;
  }
}
