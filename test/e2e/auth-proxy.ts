import { createServer, type IncomingHttpHeaders, request, type Server } from "node:http";
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
export async function authProxy(
  target: string,
  key: string,
  opts: { asTarget?: boolean } = {},
): Promise<AuthProxy> {
  const to = new URL(target);
  let port = 0;
  const server: Server = createServer((req, res) => {
    const upstream = request(
      {
        host: to.hostname,
        port: to.port,
        method: req.method,
        path: req.url,
        // `asTarget`: a request naming the proxy is sent as one naming the target, as a token
        // bound to the target's URL (RFC 8707) needs; any other Host is forwarded as it came.
        headers: {
          ...req.headers,
          ...(opts.asTarget === true ? asTarget(req.headers, port, to) : {}),
          authorization: `Bearer ${key}`,
        },
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
  port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * A request's Host and Origin naming the proxy (at `port`, by loopback address or name), as
 * naming `to` instead; nothing when they name anything else.
 */
function asTarget(headers: IncomingHttpHeaders, port: number, to: URL): IncomingHttpHeaders {
  const host = headers.host ?? "";
  if (host !== `127.0.0.1:${port}` && host !== `localhost:${port}`) return {};
  const origin = headers.origin === `http://${host}` ? { origin: to.origin } : {};
  return { host: to.host, ...origin };
}
