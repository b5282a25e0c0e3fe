import { afterEach, describe, expect, it, vi } from "vitest";
import { DEV_KEY } from "../helpers.ts";
import {
  authorizePath,
  Browser,
  handleOf,
  pkce,
  REDIRECT,
  RESOURCE,
  tokenRequest,
} from "./helpers.ts";

afterEach(() => vi.restoreAllMocks());

/** A client id on a public HTTPS origin of its own, and the document the fence fetches there. */
function publishDocument(doc: (id: string) => Record<string, unknown>): string {
  const id = `https://app-${crypto.randomUUID().slice(0, 8)}.example/oauth/client.json`;
  const real = globalThis.fetch;
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    if (url === id) {
      return Response.json(doc(id), { headers: { "Cache-Control": "no-store" } });
    }
    return real(input, init);
  });
  return id;
}

/** Whether the fence fetched `id`. */
function fetched(id: string): boolean {
  return vi
    .mocked(globalThis.fetch)
    .mock.calls.some(([input]) => (input instanceof Request ? input.url : String(input)) === id);
}

const metadata = (id: string) => ({
  client_id: id,
  client_name: "Metadata Host",
  redirect_uris: [REDIRECT],
  grant_types: ["authorization_code", "refresh_token"],
  response_types: ["code"],
  token_endpoint_auth_method: "none",
});

describe("a client identified by its metadata document (CIMD)", { timeout: 20_000 }, () => {
  it("is fetched, shown by name, consented to, and gets tokens bound to /mcp", async () => {
    const id = publishDocument(metadata);
    const { verifier, challenge } = await pkce();
    const browser = new Browser();
    const path = authorizePath(id, challenge);
    expect((await browser.post(path, { key: DEV_KEY })).status).toBe(303);
    const page = await (await browser.fetch(path)).text();
    expect(page).toContain("Metadata Host");
    const res = await browser.post(path, {
      handle: handleOf(page),
      decision: "approve",
      tools: ["noop"],
      max_mutations: "0",
      max_paid_calls: "1",
      deadline_seconds: "60",
    });
    const code = new URL(res.headers.get("Location") ?? "").searchParams.get("code") ?? "";
    const token = await tokenRequest({
      grant_type: "authorization_code",
      code,
      redirect_uri: REDIRECT,
      client_id: id,
      code_verifier: verifier,
      resource: RESOURCE,
    });
    expect(token.status).toBe(200);
  });

  it("is refused when the document names another client id", async () => {
    const id = publishDocument((own) => ({
      ...metadata(own),
      client_id: "https://other.example/c",
    }));
    const { challenge } = await pkce();
    const res = await new Browser().fetch(authorizePath(id, challenge));
    expect(fetched(id)).toBe(true);
    expect(res.status).toBe(400);
    expect(await res.text()).not.toContain('name="handle"');
  });

  it("is refused when the redirect URI is not one the document lists", async () => {
    const id = publishDocument((own) => ({
      ...metadata(own),
      redirect_uris: ["https://app.example/cb"],
    }));
    const { challenge } = await pkce();
    const res = await new Browser().fetch(authorizePath(id, challenge));
    expect(fetched(id)).toBe(true);
    expect(res.status).toBe(400);
    expect(res.headers.get("Location")).toBeNull();
  });
});
