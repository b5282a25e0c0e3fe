import { describe, expect, it } from "vitest";
import { CONTRACTS } from "../../demo/contracts/index.ts";
import { notesWhoami } from "../../demo/contracts/notes_whoami.ts";
import policy from "../../demo/contracts/policy.json" with { type: "json" };
import type { ToolContract } from "../../src/core/contract.ts";
import { loadFence } from "../../src/core/policy.ts";
import { callsAsPrincipal } from "../../src/core/principal-auth.ts";

/** The demo's fence with notes_whoami changed by `change`: the problems loadFence names. */
function problemsWith(change: (c: ToolContract) => ToolContract): string[] {
  const contracts = CONTRACTS.map((c) => (c.name === notesWhoami.name ? change(c) : c));
  const loaded = loadFence(policy, contracts);
  return loaded.ok ? [] : loaded.error;
}

const withAuth = (auth: unknown) => (c: ToolContract) =>
  ({ ...c, upstream: { ...c.upstream, auth } }) as ToolContract;

describe("a contract called as the principal", () => {
  it("is the demo's notes tools, and no other", () => {
    const named = CONTRACTS.filter(callsAsPrincipal).map((c) => c.name);
    expect(named.sort()).toEqual(["notes_add_note", "notes_whoami"]);
    expect(problemsWith((c) => c)).toEqual([]);
  });

  it("takes only kind, as and scopes, with the one value each has", () => {
    expect(problemsWith(withAuth({ kind: "oauth", as: "fence" }))).toEqual([
      'contracts.notes_whoami.upstream.auth.as: "principal" is the only value',
    ]);
    expect(problemsWith(withAuth({ kind: "oauth", as: "principal", token: "x" }))).toEqual([
      "contracts.notes_whoami.upstream.auth.token: not a member (kind, as, scopes)",
    ]);
    expect(problemsWith(withAuth({ kind: "saml", as: "principal" }))).toEqual([
      'contracts.notes_whoami.upstream.auth.kind: "oauth" is the only kind',
    ]);
  });

  it("asks only for scope tokens (RFC 6749 §3.3), each once", () => {
    const auth = (scopes: unknown) => withAuth({ kind: "oauth", as: "principal", scopes });
    expect(problemsWith(auth(["notes", "read:all"]))).toEqual([]);
    expect(problemsWith(auth(["a b"]))).toEqual([
      "contracts.notes_whoami.upstream.auth.scopes.0: not an OAuth scope token (RFC 6749 §3.3)",
    ]);
    expect(problemsWith(auth(["notes", "notes"]))).toEqual([
      "contracts.notes_whoami.upstream.auth.scopes: a scope is listed twice",
    ]);
    expect(problemsWith(auth([]))).toEqual([
      "contracts.notes_whoami.upstream.auth.scopes: a list of 1 to 32 scopes",
    ]);
  });

  it("is reached at a URL, and never cached or shared", () => {
    const bound = (c: ToolContract) =>
      ({
        ...c,
        upstream: { ...c.upstream, endpoint: { binding: "DEMO", path: "/mcp" } },
      }) as ToolContract;
    expect(problemsWith(bound)[0]).toMatch(/upstream\.endpoint: a server called as the principal/);
    expect(problemsWith((c) => ({ ...c, cacheTtlSeconds: 60 }))[0]).toMatch(
      /cacheTtlSeconds: a tool called as the principal answers for one person/,
    );
    expect(problemsWith((c) => ({ ...c, sharedCache: true }))[0]).toMatch(/never cached or shared/);
  });
});
