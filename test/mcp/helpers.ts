import { exports } from "cloudflare:workers";
import { createHmac } from "node:crypto";
import {
  Client,
  type ElicitRequestURLParams,
  type ElicitResult,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import * as v from "valibot";
import { ProblemSchema } from "../../src/core/shapes/decision.ts";
import { DEVELOPMENT_REDACTION_KEY } from "../../src/http/redaction.ts";
import { addressFor, DEV_KEY } from "../helpers.ts";

/**
 * What the audit keeps of a body that cannot be read as a call: its keyed digest (policy
 * `audit_unparsed: "digest"`, the default), under the development key in these tests.
 */
export function unparsedDigest(body: string): string {
  return `hmac-sha256:${createHmac("sha256", DEVELOPMENT_REDACTION_KEY).update(body).digest("hex")}`;
}

/** A raw request to a run's MCP endpoint: a POST unless `method` says, with `headers` last. */
export interface RawMcpRequest {
  method?: string;
  body?: BodyInit | null;
  /** The bearer key; the development key unless given. */
  key?: string;
  /** Headers of the request's own, over (or, as "", in place of) the ones every client sends. */
  headers?: Record<string, string>;
}

/** A request to a run's MCP endpoint of the worker under test, framed as a client sends it. */
export function rawMcp(run: string, request: RawMcpRequest = {}): Promise<Response> {
  const key = request.key ?? DEV_KEY;
  return exports.default.fetch(`http://localhost/v1/runs/${run}/mcp`, {
    method: request.method ?? "POST",
    body: request.body ?? null,
    headers: {
      Authorization: `Bearer ${key}`,
      "CF-Connecting-IP": addressFor(key),
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      Host: "localhost",
      ...request.headers,
    },
  });
}

/** How the client negotiates the protocol era. */
export type Era = "legacy" | "auto";

/** A host's answer to a URL-mode elicitation: it shows the page, then says how it went. */
export type UrlElicitation = (
  params: Omit<ElicitRequestURLParams, "elicitationId">,
) => Promise<ElicitResult>;

/**
 * A real MCP SDK client connected to a run's MCP endpoint of the worker under test; with
 * `openUrl`, it declares URL-mode elicitation and answers each one with it.
 */
export async function mcpClient(
  runId: string,
  opts: { era?: Era; key?: string; openUrl?: UrlElicitation; address?: string } = {},
): Promise<Client> {
  const key = opts.key ?? DEV_KEY;
  const address = opts.address ?? addressFor(key);
  const transport = new StreamableHTTPClientTransport(
    new URL(`http://localhost/v1/runs/${runId}/mcp`),
    {
      requestInit: {
        headers: { Authorization: `Bearer ${key}`, "CF-Connecting-IP": address, Host: "localhost" },
      },
      fetch: (input, init) => exports.default.fetch(new Request(input, init)),
    },
  );
  const client = new Client(
    { name: "toolfence-test", version: "1.0.0" },
    {
      versionNegotiation: { mode: opts.era ?? "legacy" },
      ...(opts.openUrl === undefined ? {} : { capabilities: { elicitation: { url: {} } } }),
    },
  );
  const { openUrl } = opts;
  if (openUrl !== undefined) {
    client.setRequestHandler("elicitation/create", (request) => {
      if (request.params.mode !== "url") throw new Error("expected a URL-mode elicitation");
      return openUrl(request.params);
    });
  }
  await client.connect(transport);
  return client;
}

/**
 * The text of a tool result's first content block, parsed as JSON; a refusal's (`isError`) is
 * the problem details, checked against the wire shape the REST edge publishes.
 */
export function firstJson(result: {
  content?: unknown;
  isError?: unknown;
}): Record<string, unknown> {
  const content = (result.content ?? []) as { type: string; text?: string }[];
  const parsed = JSON.parse(content[0]?.text ?? "null") as Record<string, unknown>;
  if (result.isError === true) v.parse(ProblemSchema, parsed);
  return parsed;
}
