/**
 * A real OpenID provider on loopback for the e2e project: `oidc-provider` (a certified
 * implementation) with one confidential client, the fence's console, whose redirect URI is
 * the fence's callback, PKCE required, and one person. Its development sign-in form takes any
 * login (the login is the person's subject) and any password.
 */
import type { Server } from "node:http";
import Provider from "oidc-provider";

/** The fence's client at the provider; test values, never a deployment's. */
export const IDP_CLIENT_ID = "toolfence-e2e";
export const IDP_CLIENT_SECRET = "toolfence-e2e-client-secret";
/** The one person's email and name; their subject is the login typed into the form. */
export const PERSON = { email: "ada@example.com", name: "Ada Lovelace" };

/** Start the provider at `issuer` (`http://127.0.0.1:PORT`), trusting `redirectUri`. */
export async function startIdp(
  issuer: string,
  redirectUri: string,
): Promise<{ stop: () => Promise<void> }> {
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: IDP_CLIENT_ID,
        client_secret: IDP_CLIENT_SECRET,
        redirect_uris: [redirectUri],
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_basic",
      },
    ],
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
    // The claims the scopes ask for go into the ID token, which is all the fence reads.
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    cookies: { keys: ["toolfence-e2e-idp-cookie-key"] },
    findAccount: (_ctx: unknown, sub: string) => ({
      accountId: sub,
      claims: () => ({ sub, email: PERSON.email, email_verified: true, name: PERSON.name }),
    }),
  });
  const port = Number(new URL(issuer).port);
  const server: Server = await new Promise((resolve) => {
    const s = provider.listen(port, "127.0.0.1", () => resolve(s));
  });
  return {
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
