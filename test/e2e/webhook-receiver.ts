import { createServer, type Server } from "node:http";

/** One POST the receiver got. */
export interface Delivery {
  /** The `Toolfence-Signature` header as received. */
  signature: string | null;
  /** The body's exact text. */
  body: string;
  /** Epoch ms it arrived. */
  at: number;
  /** The status the receiver answered. */
  status: number;
}

/** Runs whose deliveries always fail, to see the retries stop. */
export const DOWN_PREFIX = "e2e-hook-down-";

/** Attempts per approval that fail before one succeeds, to see the retries work. */
export const FAILS_BEFORE_SUCCESS = 2;

/**
 * A real HTTP receiver on loopback for the approval webhook: it answers 503 to the first
 * attempts of each approval (every attempt for runs named DOWN_PREFIX…), then 204, and lists
 * what it got at `GET /deliveries/<approval_id>`.
 */
export async function startReceiver(): Promise<{ url: string; stop: () => Promise<void> }> {
  const got = new Map<string, Delivery[]>();
  const server: Server = createServer((req, res) => {
    if (req.method === "GET" && req.url?.startsWith("/deliveries/")) {
      const id = req.url.slice("/deliveries/".length);
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify(got.get(id) ?? []));
      return;
    }
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const { approval_id: id, run_id: run } = JSON.parse(body) as Record<string, string>;
      const list = got.get(id ?? "") ?? [];
      const down = (run ?? "").startsWith(DOWN_PREFIX) || list.length < FAILS_BEFORE_SUCCESS;
      const status = down ? 503 : 204;
      const signature = req.headers["toolfence-signature"];
      list.push({
        signature: typeof signature === "string" ? signature : null,
        body,
        at: Date.now(),
        status,
      });
      got.set(id ?? "", list);
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
