/**
 * Edge guards that run before a route: the header-size limit and the per-key rate limit.
 */
import type { MiddlewareHandler } from "hono";
import { refuse } from "../core/reasons.ts";
import type { AppContext, AppEnv } from "./context.ts";
import { MAX_HEADER_BYTES, RATE_LIMIT_PERIOD_S } from "./limits.ts";
import { problem } from "./problem.ts";

/**
 * Refuse requests whose headers together pass `maxBytes`, before anything reads them
 * (RFC 6585 §5: 431 Request Header Fields Too Large).
 */
export function headerLimit(maxBytes = MAX_HEADER_BYTES): MiddlewareHandler<AppEnv> {
  return async function headerLimit(c, next) {
    let size = 0;
    // Names and values are ByteStrings (RFC 9110 §5.5), so length counts bytes. forEach, not
    // for…of: no [name, value] array is made per header on every request.
    c.req.raw.headers.forEach((value, name) => {
      size += name.length + value.length + 4;
    });
    if (size > maxBytes) {
      return problem(
        refuse("headers_too_large", `The request headers are larger than ${maxBytes} bytes.`),
      );
    }
    await next();
  };
}

/**
 * Per-key request limit through the CALL_LIMITER binding. Its counters are kept per
 * Cloudflare location and say nothing of when the window ends, so Retry-After is the whole
 * window (RFC 9110 §10.2.3). The local development key is never limited: it is only ever
 * honoured on a loopback host. Limited requests never reach a run, so they write no audit.
 */
export function rateLimit(): MiddlewareHandler<AppEnv> {
  return async function rateLimit(c, next) {
    const limited = await spendRequests(c, 1);
    if (limited !== undefined) return limited;
    await next();
  };
}

/**
 * Count `count` requests against the key's limit, one at a time, stopping at the first the
 * limiter refuses; the 429 to answer then, else undefined. An edge whose one HTTP request
 * carries several (an MCP JSON-RPC batch) spends the rest with this.
 */
export async function spendRequests(c: AppContext, count: number): Promise<Response | undefined> {
  const { keyId } = c.get("principal");
  if (keyId === null) return undefined;
  for (let i = 0; i < count; i++) {
    if (!(await c.env.CALL_LIMITER.limit({ key: keyId })).success) {
      return problem(
        refuse(
          "rate_limited",
          `This key sent too many requests; retry after ${RATE_LIMIT_PERIOD_S} s.`,
        ),
        {},
        { "Retry-After": String(RATE_LIMIT_PERIOD_S) },
      );
    }
  }
  return undefined;
}

/**
 * `Cache-Control: no-store` on every answer of a route that carries a tenant's data (runs,
 * audit, approvals), as the console's pages: no shared or private cache may keep a copy
 * (RFC 9111 §5.2.2.5).
 */
export function noStore(): MiddlewareHandler<AppEnv> {
  return async function noStore(c, next) {
    await next();
    c.header("Cache-Control", "no-store");
  };
}
