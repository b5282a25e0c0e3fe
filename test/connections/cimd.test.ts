import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { beginFlow, finishFlow } from "../../src/connections/oauth-client.ts";
import worker from "../worker.ts";
import { NOTES, StandIn } from "./stand-in.ts";

afterEach(() => vi.restoreAllMocks());

/** The fence at a public HTTPS origin, as deployed with PUBLIC_URL. */
const PUBLIC = "https://fence.example";

async function fromFence(path: string): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request(`${PUBLIC}${path}`),
    { ...env, PUBLIC_URL: PUBLIC },
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return res;
}

describe("the fence's Client ID Metadata Document", () => {
  it("is served on the HTTPS PUBLIC_URL: its own URL as client_id, the fence's callback, a public client", async () => {
    const res = await fromFence("/oauth/client.json");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      client_id: `${PUBLIC}/oauth/client.json`,
      client_name: "toolfence",
      client_uri: PUBLIC,
      redirect_uris: [`${PUBLIC}/console/connections/callback`],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      application_type: "web",
    });
  });

  it("is not served without an HTTPS PUBLIC_URL", async () => {
    const res = await worker.fetch(
      new Request("http://localhost/oauth/client.json"),
      env,
      createExecutionContext(),
    );
    expect(res.status).toBe(404);
  });

  it("identifies the fence to a server that takes it: no registration, the document's URL as client_id", async () => {
    const standIn = new StandIn({ cimd: true }).install();
    const started = await beginFlow(PUBLIC, NOTES, null, "state-1");
    if (!started.ok) throw new Error(started.error);
    const asked = new URL(started.value.authorizationUrl);
    const clientId = asked.searchParams.get("client_id") ?? "";
    expect(clientId).toBe(`${PUBLIC}/oauth/client.json`);
    expect(standIn.registrations).toEqual([]);
    // The server fetches the document at the client id and checks the redirect URI against it.
    const document = (await (await fromFence(new URL(clientId).pathname)).json()) as {
      client_id: string;
      redirect_uris: string[];
    };
    expect(document.client_id).toBe(clientId);
    expect(document.redirect_uris).toContain(asked.searchParams.get("redirect_uri"));
    const back = new URL(await standIn.consent(asked.href, "ada"));
    const grant = await finishFlow(PUBLIC, started.value.snapshot, back);
    if (!grant.ok) throw new Error(grant.error);
    expect(grant.value.subject).toBe("ada");
    expect(grant.value.client.client_id).toBe(clientId);
  });

  it("falls back to dynamic registration where the server takes no document", async () => {
    const standIn = new StandIn().install();
    const started = await beginFlow(PUBLIC, NOTES, null, "state-2");
    expect(started.ok).toBe(true);
    expect(standIn.registrations).toHaveLength(1);
    expect(standIn.registrations[0]).toMatchObject({
      redirect_uris: [`${PUBLIC}/console/connections/callback`],
      token_endpoint_auth_method: "none",
    });
  });
});
