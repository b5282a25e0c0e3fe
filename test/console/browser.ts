import { exports } from "cloudflare:workers";

/** The console's own origin in tests: loopback, where the development key is honoured. */
export const ORIGIN = "http://localhost";

/**
 * A minimal same-origin browser for the console: it sends Origin on every POST (as a
 * browser does, and as Hono's CSRF check needs), keeps the session cookie, and never
 * follows redirects, so tests see them.
 */
export class ConsoleClient {
  cookie: string | null = null;

  /** @param target the worker the client talks to: the test worker, or an app of a test's own. */
  constructor(
    private readonly target: { fetch: (request: Request) => Promise<Response> } = {
      fetch: (request) => exports.default.fetch(request),
    },
  ) {}

  async get(path: string, headers: Record<string, string> = {}): Promise<Response> {
    return this.send(path, { method: "GET", headers });
  }

  async post(path: string, form: Record<string, string | string[]>, origin = ORIGIN) {
    const body = new URLSearchParams();
    for (const [name, value] of Object.entries(form)) {
      for (const one of Array.isArray(value) ? value : [value]) body.append(name, one);
    }
    return this.send(path, { method: "POST", body, headers: { Origin: origin } });
  }

  private async send(path: string, init: RequestInit): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookie !== null) headers.set("Cookie", this.cookie);
    // As `wrangler dev` reports a browser on this machine.
    headers.set("CF-Connecting-IP", "127.0.0.1");
    const res = await this.target.fetch(
      new Request(`${ORIGIN}${path}`, { ...init, headers, redirect: "manual" }),
    );
    const set = res.headers.get("Set-Cookie");
    if (set !== null) {
      const pair = set.split(";")[0] ?? "";
      this.cookie = /Max-Age=0/i.test(set) || pair.endsWith("=") ? null : pair;
    }
    return res;
  }
}

/** A client signed in with `key`. */
export async function signedIn(
  key: string,
  target?: ConstructorParameters<typeof ConsoleClient>[0],
): Promise<ConsoleClient> {
  const client = new ConsoleClient(target);
  const res = await client.post("/console/sign-in", { key });
  if (res.status !== 303) throw new Error(`sign-in answered ${res.status}`);
  return client;
}
