import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { vi } from "vitest";
import { demoUpstreams } from "../helpers.ts";

/**
 * Counts what one request waits on, by wrapping the bindings the worker is handed: every
 * Durable Object RPC (per namespace), KV read and write, rate-limiter check and service
 * fetch; Cache API calls are counted by spying on `caches.default`; storage transactions,
 * and alarm writes by spying on the objects' own `transactionSync` and
 * `setAlarm`/`deleteAlarm`; the calls a tenant's TenantIndex takes, from the worker or from
 * a run's object, by wrapping that object's methods. Nothing in the code under test knows.
 */
export interface Counts {
  /** RPCs to a RunLedger, by method. */
  run: string[];
  /** RPCs to a TargetClaims object, by method. */
  claim: string[];
  /** Calls the watched TenantIndex took (from any caller), by method. */
  tenant: string[];
  /**
   * Every Durable Object RPC as it starts (`start run.propose`) and as its answer lands
   * (`end run.propose`), in order: which steps overlap and which wait for another.
   */
  timeline: string[];
  /** Cache API calls (`match`, `put`). */
  cache: string[];
  /** KV calls, as `BINDING.method`. */
  kv: string[];
  /** Rate-limiter checks, by binding. */
  limiter: string[];
  /** Requests to the demo upstream service (the tool itself). */
  upstream: number;
  /** `transactionSync` calls in the spied objects. */
  transactions: number;
  /** Alarm writes (`setAlarm`, `deleteAlarm`) in the spied objects. */
  alarms: string[];
}

/** A set of counters and the bindings that feed them. */
export interface Counter {
  /** The worker's bindings, wrapped. */
  env: Env;
  /** What has been counted so far. */
  counts: Counts;
  /** Count the transactions and alarm writes of the object `name` of `binding` from now on. */
  watch(binding: "RUN_LEDGER" | "TARGET_CLAIMS", name: string): Promise<void>;
  /** Count the calls the tenant's TenantIndex takes from now on, whoever makes them. */
  watchTenant(tenant: string): Promise<void>;
}

function fresh(): Counts {
  return {
    run: [],
    claim: [],
    tenant: [],
    timeline: [],
    cache: [],
    kv: [],
    limiter: [],
    upstream: 0,
    transactions: 0,
    alarms: [],
  };
}

/** Where a counted object's calls are also logged as they start and as their answers land. */
interface Timeline {
  /** The log, as `start <label>.<method>` and `end <label>.<method>`. */
  list: string[];
  /** The object's label in it. */
  label: string;
}

/**
 * `target` with every method call logged in `into` (as `prefix` + name) before it goes out,
 * and, with a `timeline`, its start and its answer's landing logged there.
 */
function counted<T extends object>(target: T, into: string[], prefix = "", timeline?: Timeline): T {
  return new Proxy(target, {
    get(obj, prop) {
      const value = Reflect.get(obj, prop);
      if (typeof prop !== "string" || typeof value !== "function") return value;
      return (...args: unknown[]) => {
        into.push(`${prefix}${prop}`);
        // Reflect.apply: an RPC stub's function would read `.apply` as a remote method.
        const result = Reflect.apply(value, obj, args);
        if (timeline === undefined) return result;
        const name = `${timeline.label}.${prop}`;
        timeline.list.push(`start ${name}`);
        const landed = () => timeline.list.push(`end ${name}`);
        return Promise.resolve(result).then(
          (answer) => {
            landed();
            return answer;
          },
          (error) => {
            landed();
            throw error;
          },
        );
      };
    },
  });
}

/** A namespace whose stubs are counted and timed. */
function countedNamespace<T extends object>(
  ns: T,
  into: string[],
  timeline: string[],
  label: string,
): T {
  return new Proxy(ns, {
    get(obj, prop) {
      const value = Reflect.get(obj, prop);
      if (prop !== "getByName" || typeof value !== "function") return value;
      return (name: string) =>
        counted(Reflect.apply(value, obj, [name]), into, "", { list: timeline, label });
    },
  });
}

/** Fresh counters over the test environment's bindings. */
export function counter(): Counter {
  const counts = fresh();
  const limited = (name: string, rl: RateLimit): RateLimit => ({
    limit: (options) => {
      counts.limiter.push(name);
      return rl.limit(options);
    },
  });
  const wrapped = {
    ...env,
    RUN_LEDGER: countedNamespace(env.RUN_LEDGER, counts.run, counts.timeline, "run"),
    TARGET_CLAIMS: countedNamespace(env.TARGET_CLAIMS, counts.claim, counts.timeline, "claim"),
    RESULTS: counted(env.RESULTS, counts.kv, "RESULTS."),
    API_KEYS: counted(env.API_KEYS, counts.kv, "API_KEYS."),
    CALL_LIMITER: limited("CALL_LIMITER", env.CALL_LIMITER),
    AUTH_FAILURE_LIMITER: limited("AUTH_FAILURE_LIMITER", env.AUTH_FAILURE_LIMITER),
    DEMO: {
      fetch: (input: RequestInfo | URL, init?: RequestInit) => {
        counts.upstream += 1;
        return demoUpstreams().fetch(input, init);
      },
    },
  } as unknown as Env;
  for (const method of ["match", "put"] as const) {
    const real = caches.default[method].bind(caches.default) as (...a: unknown[]) => unknown;
    vi.spyOn(caches.default, method).mockImplementation(((...args: unknown[]) => {
      counts.cache.push(method);
      return real(...args);
    }) as never);
  }
  const watched = new Set<string>();
  return {
    env: wrapped,
    counts,
    async watch(binding, name) {
      if (watched.has(`${binding}/${name}`)) return;
      watched.add(`${binding}/${name}`);
      await runInDurableObject(
        env[binding].getByName(name),
        (_instance, state: DurableObjectState) => {
          const real = state.storage.transactionSync.bind(state.storage);
          state.storage.transactionSync = <T>(closure: () => T): T => {
            counts.transactions += 1;
            return real(closure);
          };
          for (const method of ["setAlarm", "deleteAlarm"] as const) {
            const write = state.storage[method].bind(state.storage) as (...a: unknown[]) => unknown;
            (state.storage as unknown as Record<string, unknown>)[method] = (...a: unknown[]) => {
              counts.alarms.push(method);
              return write(...a);
            };
          }
        },
      );
    },
    async watchTenant(tenant) {
      if (watched.has(`TENANT_INDEX/${tenant}`)) return;
      watched.add(`TENANT_INDEX/${tenant}`);
      // An RPC reaches only the class's own methods: the spies sit on its prototype and count
      // the calls made on this tenant's instance alone.
      await runInDurableObject(env.TENANT_INDEX.getByName(tenant), (instance: object) => {
        const proto = Object.getPrototypeOf(instance) as Record<
          string,
          (...a: unknown[]) => unknown
        >;
        for (const method of Object.getOwnPropertyNames(proto)) {
          const real = proto[method];
          if (method === "constructor" || typeof real !== "function") continue;
          vi.spyOn(proto, method).mockImplementation(function (this: unknown, ...a: unknown[]) {
            if (this === instance) counts.tenant.push(method);
            return Reflect.apply(real, this, a);
          });
        }
      });
    },
  };
}

/** A copy of the counts as they stand. */
export function snapshot(counts: Counts): Counts {
  return structuredClone(counts);
}
