/**
 * Listing the tools of an OAuth-protected MCP server from the command line, for `contracts
 * import --auth oauth` and `drift --auth oauth`: first, whether the server asks for OAuth (it
 * answers an unauthenticated request 401 with `WWW-Authenticate: Bearer resource_metadata=…`,
 * RFC 9728 §5.1); then, unless a token was given with `--header`, the MCP authorization flow
 * run by the official SDK (`StreamableHTTPClientTransport` with an `OAuthClientProvider`,
 * `finishAuth` with the whole callback), as a native app does it: dynamic registration, PKCE,
 * a loopback redirect URI (RFC 8252 §7.3) on a port of this machine, and the person opening
 * the printed address in a browser. The token lives in this process's memory only, for the one
 * listing, and is never written anywhere.
 */
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  Client,
  type OAuthClientInformationMixed,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type OAuthTokens,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from "@modelcontextprotocol/client";
import { allTools } from "../../../src/execute/mcp-list.ts";
import type { ListedTool } from "./pin.ts";

/** How long the person may take in the browser. */
const BROWSER_TIMEOUT_MS = 5 * 60_000;

/**
 * What the server answered an initialize without credentials: whether it is a 401 naming its
 * resource metadata (RFC 9728 §5.1), and what it was otherwise.
 */
export async function asksForOAuth(
  url: string,
): Promise<{ ok: true } | { ok: false; why: string }> {
  const res = await fetch(url, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "toolfence-contracts", version: "1" },
      },
    }),
  });
  await res.body?.cancel();
  const challenge = res.headers.get("WWW-Authenticate") ?? "";
  if (res.status === 401 && /^Bearer\b/i.test(challenge) && /resource_metadata=/.test(challenge)) {
    return { ok: true };
  }
  return {
    ok: false,
    why: `it answered ${res.status}${challenge === "" ? "" : ` with WWW-Authenticate: ${challenge}`}, not 401 with Bearer resource_metadata`,
  };
}

/** The import's OAuth client, in memory: registered by RFC 7591, redirected to loopback. */
class ImportClient implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = "";
  discovery: OAuthDiscoveryState | undefined;
  authorizationUrl: URL | null = null;
  readonly stateValue = randomBytes(32).toString("base64url");
  readonly redirect: string;
  constructor(redirect: string) {
    this.redirect = redirect;
  }
  get redirectUrl() {
    return this.redirect;
  }
  get clientMetadata() {
    return {
      client_name: "toolfence contracts import",
      redirect_uris: [this.redirect],
      // One listing: no refresh token is asked for.
      grant_types: ["authorization_code"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  state() {
    return this.stateValue;
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery;
  }
}

/** A loopback listener for the one redirect back, answering the browser in words. */
async function loopback(): Promise<{ server: Server; redirect: string; back: Promise<URL> }> {
  let resolve: (url: URL) => void = () => undefined;
  const back = new Promise<URL>((r) => {
    resolve = r;
  });
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (url.pathname !== "/callback") return void res.writeHead(404).end();
    res.writeHead(200, { "Content-Type": "text/plain; charset=utf-8" });
    res.end("The import can list the server's tools now; you may close this page.\n");
    resolve(url);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return { server, redirect: `http://127.0.0.1:${port}/callback`, back };
}

/**
 * Every tool the OAuth-protected server at `url` lists, once a person has allowed it in a
 * browser: `say` prints the address to open (on stderr, so stdout stays the import's).
 */
export async function listWithBrowser(
  url: string,
  say: (line: string) => void,
): Promise<ListedTool[]> {
  const { server, redirect, back } = await loopback();
  const provider = new ImportClient(redirect);
  try {
    const first = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
    try {
      await new Client({ name: "toolfence-contracts", version: "1" }).connect(first);
    } catch (e) {
      if (!(e instanceof UnauthorizedError) || provider.authorizationUrl === null) throw e;
    }
    if (provider.authorizationUrl !== null) {
      say(
        `open this address in a browser and allow the import to list the tools:\n  ${provider.authorizationUrl}`,
      );
      const timeout = new Promise<never>((_, reject) =>
        setTimeout(
          () => reject(new Error("nobody allowed the import in time")),
          BROWSER_TIMEOUT_MS,
        ).unref(),
      );
      const callback = await Promise.race([back, timeout]);
      // RFC 6749 §10.12: the answer must be to this request.
      if (callback.searchParams.get("state") !== provider.stateValue) {
        throw new Error("the authorization server answered for another request (state)");
      }
      // The whole callback: the SDK checks `iss` (RFC 9207) before it redeems the code.
      await first.finishAuth(callback.searchParams);
    }
    const client = new Client({ name: "toolfence-contracts", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), { authProvider: provider }),
    );
    try {
      return await allTools(client);
    } finally {
      await client.close().catch(() => undefined);
    }
  } finally {
    server.close();
  }
}
