import { env } from "cloudflare:workers";
import * as v from "valibot";
import policy from "../demo/contracts/policy.json" with { type: "json" };
import { buildApp } from "../src/app.ts";
import type { ToolContract } from "../src/core/contract.ts";
import { loadFence } from "../src/core/policy.ts";
import { devRequest, proposeThrough } from "./helpers.ts";

/** What the double received. */
export interface Received {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** A scripted answer: a response, a hang of `ms`, or a network failure. */
export type Script = (n: number) => Promise<Response>;

/** An upstream double bound as `UPSTREAM`: records every request, answers from a script. */
export class UpstreamDouble {
  readonly received: Received[] = [];
  constructor(private readonly script: Script) {}

  async fetch(request: Request): Promise<Response> {
    this.received.push({
      method: request.method,
      url: request.url,
      headers: Object.fromEntries(request.headers),
      body: await request.text(),
    });
    return this.script(this.received.length);
  }
}

/** Answer with `body` as JSON and `status`. */
export const reply = (status: number, body: unknown) => () =>
  Promise.resolve(Response.json(body, { status }));

/** Never answer within `ms`. */
export const hang = (ms: number) => () =>
  new Promise<Response>((resolve) => setTimeout(() => resolve(Response.json({})), ms));

/** A paid mutation whose upstream is the double. */
export const chargeCard: ToolContract = {
  name: "charge_card",
  version: "v1",
  description: "Charge a card.",
  effect: "mutate",
  paid: true,
  input: v.strictObject({
    account: v.pipe(v.string(), v.regex(/^[a-z0-9-]+$/)),
    amount_cents: v.pipe(v.number(), v.integer(), v.minValue(1)),
  }),
  output: v.strictObject({ charge_id: v.string() }),
  timeoutMs: 200,
  cacheTtlSeconds: 0,
  sharedCache: false,
  upstream: {
    kind: "service",
    binding: "UPSTREAM",
    method: "POST",
    path: "/accounts/{account}/charges",
  },
};

/** A slow read whose only limit is the policy cap and the run's deadline. */
export const slowReport: ToolContract = {
  name: "slow_report",
  version: "v1",
  description: "A report that takes a while.",
  effect: "read",
  paid: true,
  input: v.strictObject({}),
  output: v.strictObject({ rows: v.number() }),
  timeoutMs: 8000,
  cacheTtlSeconds: 0,
  sharedCache: false,
  upstream: { kind: "service", binding: "UPSTREAM", method: "GET", path: "/report" },
};

const loaded = loadFence({ ...policy, allowed_tools: ["charge_card", "slow_report"], tools: {} }, [
  chargeCard,
  slowReport,
]);
if (!loaded.ok) throw new Error(loaded.error.join("; "));
const app = buildApp(loaded.value);

/** Propose a call to the app built with the double's contracts, against `double`. */
export function proposeTo(
  double: UpstreamDouble,
  runId: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return proposeThrough(app, { ...env, UPSTREAM: double } as Env, runId, body, headers);
}

/** GET a route of the app built with the double's contracts. */
export function getFrom(path: string): Promise<Response> {
  return Promise.resolve(app.fetch(devRequest(path), env));
}
