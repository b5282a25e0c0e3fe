/**
 * `node:crypto`, loaded at its first use instead of when the worker loads. workerd builds its
 * Node-compatible crypto module (with the streams, buffer and zlib modules it needs) when the
 * module is imported: about 9 ms of every isolate's startup, paid even by isolates that never
 * hash (BENCHMARKS.md, "Bundle and startup"). Synchronous, as its callers need: the audit chain
 * hashes inside a Durable Object's storage transaction.
 */
type NodeCrypto = typeof import("node:crypto");

let loaded: NodeCrypto | undefined;

/** The `node:crypto` module, loaded the first time it is asked for. */
export function nodeCrypto(): NodeCrypto {
  loaded ??= process.getBuiltinModule("node:crypto");
  return loaded;
}
