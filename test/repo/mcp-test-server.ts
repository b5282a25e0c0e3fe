/**
 * A minimal MCP server over streamable HTTP (JSON answers, no sessions) that lists whatever
 * tools a test gives it, for the command lines' tests: a server can list anything at all,
 * including names and schemas no real SDK server would send.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** A listening server. */
export interface ListingServer {
  /** Its MCP endpoint. */
  url: string;
  /** Stop listening. */
  close: () => Promise<void>;
}

/** Start a server whose `tools/list` answers `tools`. */
export async function listingServer(tools: readonly unknown[]): Promise<ListingServer> {
  const server: Server = createServer((req, res) => {
    if (req.method !== "POST") {
      res.writeHead(405).end();
      return;
    }
    let body = "";
    req.on("data", (chunk: Buffer) => {
      body += chunk.toString("utf8");
    });
    req.on("end", () => {
      const msg = JSON.parse(body) as {
        id?: number;
        method: string;
        params?: Record<string, unknown>;
      };
      if (msg.id === undefined) {
        res.writeHead(202).end();
        return;
      }
      const result =
        msg.method === "initialize"
          ? {
              protocolVersion: msg.params?.protocolVersion,
              capabilities: { tools: {} },
              serverInfo: { name: "listing", version: "1" },
            }
          : msg.method === "tools/list"
            ? { tools }
            : {};
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ jsonrpc: "2.0", id: msg.id, result }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
