/** An MCP host's side of OAuth for the e2e tests, kept in memory as a real host keeps it. */
import type { OAuthClientProvider } from "@modelcontextprotocol/client";

export type Stored = Awaited<ReturnType<OAuthClientProvider["tokens"]>>;
export type Info = Awaited<ReturnType<OAuthClientProvider["clientInformation"]>>;

/** An MCP host's OAuth state, in memory: what a real host keeps in its settings. */
export class HostAuth implements OAuthClientProvider {
  info: Info;
  saved: Stored;
  verifier = "";
  authorizationUrl: URL | null = null;
  readonly name: string;
  readonly redirect: string;
  constructor(name: string, redirect: string) {
    this.name = name;
    this.redirect = redirect;
  }
  get redirectUrl() {
    return this.redirect;
  }
  get clientMetadata() {
    return {
      client_name: this.name,
      redirect_uris: [this.redirect],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: Info) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: Stored) {
    this.saved = tokens;
  }
  redirectToAuthorization(authorizationUrl: URL) {
    this.authorizationUrl = authorizationUrl;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}
