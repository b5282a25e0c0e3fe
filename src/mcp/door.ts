/**
 * The MCP endpoint's strict reading. The body of `POST /v1/runs/{run_id}/mcp` is read as the
 * REST door reads a call, before the SDK sees it: UTF-8 within MAX_BODY_BYTES
 * (src/http/read-body.ts), the same media type and charset rule (src/core/body.ts), and the
 * same strict JSON (src/core/json.ts: duplicate member names, prototype names and nesting past
 * the bound refused, with no recursion). So no message the REST door would refuse is
 * normalised by a second parser into one the fence then acts on. JSON-RPC batches are read
 * only on the protocol revision that had them.
 */
import { isJsonContentType, type RequestId } from "@modelcontextprotocol/server";
import { mediaKind } from "../core/body.ts";
import { parseStrictJson } from "../core/json.ts";
import { type Refusal, refuse } from "../core/reasons.ts";
import { err, ok, type Result } from "../core/result.ts";
import type { Decision } from "../http/decision.ts";
import { MAX_BODY_BYTES, MAX_JSON_DEPTH } from "../http/limits.ts";
import { readBody } from "../http/read-body.ts";

/**
 * Deepest nesting of a JSON-RPC body: a `tools/call`'s `arguments` sit two levels below the
 * message (one more inside a batch), where a REST call's `args` sit one below the call, so
 * arguments get at least the room REST gives them. The gate bounds them exactly, as REST's.
 */
const MCP_MAX_DEPTH = MAX_JSON_DEPTH + 2;

/** The SDK's own bound on a batch's length; checked here so a longer one is audited too. */
const MAX_BATCH = 100;

/**
 * The one revision whose transport had JSON-RPC batches (2025-06-18 removed them). A request
 * without `MCP-Protocol-Version` is taken as 2025-03-26, as the 2025-06-18 transport says.
 */
const BATCH_REVISION = "2025-03-26";

/** Where a 2026-07-28 message names its revision. */
const VERSION_META = "io.modelcontextprotocol/protocolVersion";

// JSON-RPC 2.0 §5.1 error codes; -32000 is the SDK's for transport-level refusals.
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const TRANSPORT_ERROR = -32000;

/** A body the door read: the message for the SDK, and what the client sent for each request. */
export interface McpMessage {
  /** The body as `JSON.parse` gives it (equal to the strict reading), for the SDK's `parsedBody`. */
  parsed: unknown;
  /** How many JSON-RPC messages the body holds: a batch's length, else 1. */
  count: number;
  /** The bytes the client sent for the request of this id: the body, or its batch element. */
  received: (id: RequestId) => string;
}

/** Why the door refused a body: the refusal, its JSON-RPC error code, and what was read. */
export interface DoorRefusal {
  /** The refusal, from the one decision table. */
  refusal: Refusal;
  /** The JSON-RPC error code it is answered with. */
  code: number;
  /** The body as far as it was read as UTF-8 ("" when it was not). */
  text: string;
}

/** Read a request's body the way the REST door reads a call, and check it as JSON-RPC. */
export async function readMessage(request: Request): Promise<Result<McpMessage, DoorRefusal>> {
  const contentType = request.headers.get("Content-Type");
  const media = mediaKind(contentType);
  if (!media.ok) return refused(media.error, TRANSPORT_ERROR, "");
  if (media.value !== "json" || !isJsonContentType(contentType)) {
    const detail = "The MCP endpoint reads application/json only, with charset utf-8 if any.";
    return refused(refuse("unsupported_media_type", detail), TRANSPORT_ERROR, "");
  }
  const body = await readBody(request, MAX_BODY_BYTES);
  if (!body.ok) {
    const code = body.error.reason === "payload_too_large" ? TRANSPORT_ERROR : PARSE_ERROR;
    return refused(body.error, code, "");
  }
  const text = body.value;
  const strict = parseStrictJson(text, { maxDepth: MCP_MAX_DEPTH });
  if (!strict.ok) return refused(strict.error, PARSE_ERROR, text);
  // The strict reading refused everything JSON.parse would have read differently, so the
  // SDK's plain objects (its schemas expect Object.prototype) hold exactly the same value.
  const parsed: unknown = JSON.parse(text);
  if (!Array.isArray(parsed)) return ok({ parsed, count: 1, received: () => text });
  return batchOf(request, parsed, text);
}

/** A batch, where its revision allows one: each request's own bytes kept by its id. */
function batchOf(
  request: Request,
  batch: unknown[],
  text: string,
): Result<McpMessage, DoorRefusal> {
  const invalid = (detail: string) =>
    refused(refuse("malformed_payload", detail), INVALID_REQUEST, text);
  const header = request.headers.get("MCP-Protocol-Version")?.trim() ?? BATCH_REVISION;
  const claimed = batch.map(claimedRevision).find((v) => v !== undefined && v !== BATCH_REVISION);
  const revision = claimed ?? header;
  if (revision !== BATCH_REVISION) {
    return invalid(
      `JSON-RPC batches are not part of MCP ${revision} (removed in 2025-06-18); send one message per request.`,
    );
  }
  if (batch.length === 0 || batch.length > MAX_BATCH) {
    return invalid(`A JSON-RPC batch holds 1 to ${MAX_BATCH} messages, not ${batch.length}.`);
  }
  const elements = elementTexts(text);
  const byId = new Map<string, string>();
  for (const [i, message] of batch.entries()) {
    const id = requestIdOf(message);
    if (id === undefined) continue;
    // JSON-RPC 2.0 §6: answers are matched to requests by id, so two alike are ambiguous.
    if (byId.has(id)) return invalid(`Two requests of the batch share the id ${id}.`);
    byId.set(id, elements[i] ?? text);
  }
  const received = (id: RequestId) => byId.get(JSON.stringify(id)) ?? text;
  return ok({ parsed: batch, count: batch.length, received });
}

/** The id of a JSON-RPC request (a message with a method and an id), as JSON text. */
function requestIdOf(message: unknown): string | undefined {
  if (typeof message !== "object" || message === null || !("method" in message)) return undefined;
  const id = (message as { id?: unknown }).id;
  return typeof id === "string" || typeof id === "number" ? JSON.stringify(id) : undefined;
}

/** The revision a message names in its `params._meta`, if any (2026-07-28 messages do). */
function claimedRevision(message: unknown): string | undefined {
  const params = (message as { params?: { _meta?: Record<string, unknown> } } | null)?.params;
  const version = params?._meta?.[VERSION_META];
  return typeof version === "string" ? version : undefined;
}

/**
 * The text of each element of a JSON array, as sent (whitespace around it dropped). Only for
 * text the strict parser has accepted as an array, so every string is closed.
 */
export function elementTexts(text: string): string[] {
  const elements: string[] = [];
  const cut = (from: number, to: number) => elements.push(text.slice(from, to).trimEnd());
  let depth = 0;
  let start = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const space = c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
    if (depth === 1 && start < 0 && !space && c !== 0x2c && c !== 0x5d) start = i;
    if (c === 0x22) {
      // Past the string: a backslash takes the character after it along.
      for (i++; text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c) i++;
    } else if (c === 0x5b || c === 0x7b) {
      depth++;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
      if (depth === 0 && start >= 0) cut(start, i);
    } else if (c === 0x2c && depth === 1) {
      cut(start, i);
      start = -1;
    }
  }
  return elements;
}

function refused(refusal: Refusal, code: number, text: string): Result<never, DoorRefusal> {
  return err({ refusal, code, text });
}

/**
 * A refusal at the door, as JSON-RPC answers it (the SDK's form: no id can be trusted from a
 * body that was not read): the HTTP status from the decision table, the problem details
 * (with the audited call's id and the run's budget) as the error's `data`.
 */
export function doorAnswer(decision: Decision, code: number): Response {
  const message = String(decision.body.detail ?? decision.body.title);
  return Response.json(
    { jsonrpc: "2.0", id: null, error: { code, message, data: decision.body } },
    { status: decision.status },
  );
}
