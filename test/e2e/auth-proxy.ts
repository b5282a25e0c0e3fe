import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** A loopback proxy that adds one header to every request it forwards. */
export interface AuthProxy {
  /** Base URL of the proxy, `http://127.0.0.1:PORT`. */
  url: string;
  /** Stop listening. */
  close: () => Promise<void>;
}

/**
 * For clients that cannot send a bearer key (the MCP conformance suite has no option for
 * one): forward every request to `target` byte for byte, Host and Origin included, with
 * `Authorization: Bearer <key>` added, and pipe the answer back as it comes.
 */
export async function authProxy(target: string, key: string): Promise<AuthProxy> {
  const to = new URL(target);
  const server: Server = createServer((req, res) => {
    const upstream = request(
      {
        host: to.hostname,
        port: to.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, authorization: `Bearer ${key}` },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
