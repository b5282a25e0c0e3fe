import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One OTLP/HTTP export the receiver got. */
export interface Export {
  /** `/v1/traces` or `/v1/metrics`. */
  path: string;
  /** Its Content-Type. */
  contentType: string | null;
  /** The `x-otlp-key` header, as the OTEL_EXPORTER_OTLP_HEADERS secret sets it. */
  key: string | null;
  /** The protobuf body, base64. */
  body: string;
}

/** What an upstream saw of the trace context of one request. */
export interface SeenTrace {
  /** The `traceparent` header. */
  header: string | null;
  /** `params._meta.traceparent` of a JSON-RPC `tools/call`, or null. */
  meta: string | null;
}

/** A loopback server: its URL and how to stop it. */
export interface Loopback {
  /** `http://127.0.0.1:PORT`. */
  url: string;
  /** Stop listening. */
  stop: () => Promise<void>;
}

async function listen(server: Server): Promise<Loopback> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function header(value: string | string[] | undefined): string | null {
  return typeof value === "string" ? value : null;
}

/**
 * An OTLP/HTTP receiver, as a collector's: it answers 200 to every POST and lists what it
 * got at `GET /received`, bodies as sent (the test decodes them).
 */
export async function startOtlpReceiver(): Promise<Loopback> {
  const got: Export[] = [];
  const server = createServer((req, res) => {
    if (req.method === "GET" && req.url === "/received") {
      res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify(got));
      return;
    }
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      got.push({
        path: req.url ?? "",
        contentType: header(req.headers["content-type"]),
        key: header(req.headers["x-otlp-key"]),
        body: Buffer.concat(chunks).toString("base64"),
      });
      res.writeHead(200, { "Content-Type": "application/x-protobuf" }).end();
    });
  });
  return listen(server);
}

/**
 * A loopback proxy in front of an MCP server that notes the trace context of every request
 * it forwards (header and `tools/call` `_meta`), listed at `GET /__seen`. A request the
 * server cannot take is cut off, as the server's own refusal would be.
 */
export async function startTraceRecorder(target: string): Promise<Loopback> {
  const to = new URL(target);
  const seen: SeenTrace[] = [];
  const server = createServer((req, res) => {
    if (req.method === "GET" && req.url === "/__seen") {
      res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify(seen));
      return;
    }
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const meta = metaTraceparent(body.toString("utf8"));
      seen.push({ header: header(req.headers.traceparent), meta });
      const upstream = request(
        {
          host: to.hostname,
          port: to.port,
          method: req.method,
          path: req.url,
          headers: req.headers,
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on("error", () => res.destroy());
      upstream.end(body);
    });
  });
  return listen(server);
}

function metaTraceparent(text: string): string | null {
  try {
    const message = JSON.parse(text) as {
      method?: string;
      params?: { _meta?: Record<string, unknown> };
    };
    const value = message.method === "tools/call" ? message.params?._meta?.traceparent : undefined;
    return typeof value === "string" ? value : null;
  } catch {
    return null;
  }
}
