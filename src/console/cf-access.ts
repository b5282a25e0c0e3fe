/**
 * Cloudflare Access in front of the console: Access signs each request it lets through with a
 * JWT in `Cf-Access-Jwt-Assertion`, which the fence verifies itself against the team's keys
 * (`https://<team>/cdn-cgi/access/certs`), issuer and the application's audience tag, so a
 * request that reached the worker around Access carries nothing it would accept.
 */
import { createRemoteJWKSet, type JWTPayload, jwtVerify } from "jose";
import { err, ok, type Result } from "../core/result.ts";

/** The header Access adds to every request it lets through. */
export const ACCESS_HEADER = "Cf-Access-Jwt-Assertion";

/** The team and application the deployment set, or null when Access is not configured. */
export function accessConfig(env: Env): { team: string; aud: string } | null {
  const domain = (env.ACCESS_TEAM_DOMAIN ?? "").replace(/^https:\/\//, "").replace(/\/$/, "");
  const aud = env.ACCESS_AUD ?? "";
  if (domain === "" || aud === "" || !/^[a-z0-9.-]+$/i.test(domain)) return null;
  return { team: `https://${domain}`, aud };
}

const keySets = new Map<string, ReturnType<typeof createRemoteJWKSet>>();

function keySetOf(team: string) {
  let set = keySets.get(team);
  if (set === undefined) {
    set = createRemoteJWKSet(new URL(`${team}/cdn-cgi/access/certs`), { timeoutDuration: 5_000 });
    keySets.set(team, set);
  }
  return set;
}

/**
 * The claims of the request's Access JWT, or why there are none: Access is not configured,
 * the header is missing, or the token fails its signature, issuer, audience or expiry.
 */
export async function accessClaims(
  env: Env,
  request: Request,
): Promise<Result<JWTPayload, string>> {
  const config = accessConfig(env);
  if (config === null) return err("Cloudflare Access is not configured.");
  const token = request.headers.get(ACCESS_HEADER);
  if (token === null || token.length > 8_192) return err("No Access token came with the request.");
  try {
    const { payload } = await jwtVerify(token, keySetOf(config.team), {
      issuer: config.team,
      audience: config.aud,
      algorithms: ["RS256"],
      requiredClaims: ["sub", "exp"],
    });
    // Access signs only an email its own sign-in verified (docs/security.md#people).
    return ok({ ...payload, email_verified: typeof payload.email === "string" });
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    return err(
      `The Access token is not valid (${typeof code === "string" ? code : "unverifiable"}).`,
    );
  }
}
