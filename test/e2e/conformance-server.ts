/**
 * The upstream of the transparency check: an MCP server with the tools, resources and prompts
 * the official conformance suite's server scenarios call by name (`test_simple_text`,
 * `test://static-text`, `test_simple_prompt`, …), with the behaviour each scenario asks for, built
 * on the v2 SDK's `McpServer` and served over streamable HTTP on loopback: 2025-era requests in
 * sessions (server-to-client requests, notifications and subscriptions need one), 2026-07-28
 * requests per request by the SDK's handler. Its tools change nothing, so each is listed
 * `readOnlyHint: true`.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  acceptedContent,
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  classifyInboundRequest,
  createMcpHandler,
  createRequestStateCodec,
  fromJsonSchema,
  type GetPromptResult,
  hostHeaderValidationResponse,
  type InputRequests,
  type InputRequiredResult,
  inputRequired,
  isInitializeRequest,
  type JsonSchemaType,
  localhostAllowedHostnames,
  McpServer,
  ProtocolError,
  ProtocolErrorCode,
  ResourceTemplate,
  type ServerContext,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";

/** A 1×1 PNG, base64. */
const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
/** A WAV file with two samples, base64. */
const WAV = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";

/** The input schema of a tool that takes no arguments. */
const NO_ARGS = { type: "object", properties: {} } as const satisfies JsonSchemaType;

/**
 * The JSON Schema 2020-12 tool's input, as the `json-schema-2020-12` scenario expects it listed:
 * `$schema`, `$defs` with an `$anchor`, a `$ref`, `allOf`/`anyOf`, `if`/`then`/`else` and
 * `additionalProperties: false`.
 */
export const SCHEMA_2020_12 = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  $defs: {
    address: {
      $anchor: "addressDef",
      type: "object",
      properties: { street: { type: "string" }, city: { type: "string" } },
    },
  },
  properties: {
    name: { type: "string" },
    address: { $ref: "#/$defs/address" },
    contactMethod: { type: "string", enum: ["phone", "email"] },
    phone: { type: "string" },
    email: { type: "string" },
  },
  allOf: [{ anyOf: [{ required: ["phone"] }, { required: ["email"] }] }],
  if: { properties: { contactMethod: { const: "phone" } }, required: ["contactMethod"] },
  // biome-ignore lint/suspicious/noThenProperty: `then` is a JSON Schema 2020-12 keyword.
  then: { required: ["phone"] },
  else: { required: ["email"] },
  additionalProperties: false,
} as const;

/** A requested schema of one required string field. */
function oneField(name: string) {
  return {
    type: "object" as const,
    properties: { [name]: { type: "string" as const } },
    required: [name],
  };
}

/** A text result. */
function text(t: string): CallToolResult {
  return { content: [{ type: "text", text: t }] };
}

/** The answer of a form elicitation the client accepted, as the scenarios read it back. */
function answerText(prefix: string, result: { action?: string; content?: unknown }): string {
  return `${prefix}: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`;
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What the server serves besides the MCP server instances: shared by all of them. */
interface Shared {
  /** Seals the 2026-07-28 input-required rounds' `requestState` (HMAC, per process). */
  codec: ReturnType<typeof createRequestStateCodec<Record<string, unknown>>>;
  /** Publishes list changes to `subscriptions/listen` streams (2026-07-28). */
  notify: () => ReturnType<typeof createMcpHandler>["notify"];
}

/** Register the tools whose only work is to answer: content of each kind, errors. */
function contentTools(server: McpServer): void {
  const tool = (name: string, description: string, answer: () => CallToolResult) =>
    server.registerTool(
      name,
      { description, inputSchema: fromJsonSchema(NO_ARGS), annotations: { readOnlyHint: true } },
      async () => answer(),
    );
  tool("test_simple_text", "A text block", () =>
    text("This is a simple text response for testing."),
  );
  tool("test_image_content", "An image block", () => ({
    content: [{ type: "image", data: PNG, mimeType: "image/png" }],
  }));
  tool("test_audio_content", "An audio block", () => ({
    content: [{ type: "audio", data: WAV, mimeType: "audio/wav" }],
  }));
  tool("test_embedded_resource", "An embedded text resource", () => ({
    content: [
      {
        type: "resource",
        resource: {
          uri: "test://embedded-resource",
          mimeType: "text/plain",
          text: "This is an embedded resource content.",
        },
      },
    ],
  }));
  tool("test_multiple_content_types", "Text, an image and a resource", () => ({
    content: [
      { type: "text", text: "Multiple content types test:" },
      { type: "image", data: PNG, mimeType: "image/png" },
      {
        type: "resource",
        resource: {
          uri: "test://mixed-content-resource",
          mimeType: "application/json",
          text: JSON.stringify({ test: "data", value: 123 }),
        },
      },
    ],
  }));
  tool("test_error_handling", "An error result", () => {
    throw new Error("This tool intentionally returns an error for testing");
  });
  tool("test_streaming_elicitation", "A result and nothing else on its stream", () =>
    text("result frames only"),
  );
  // SEP-2243: an argument mirrored into an `Mcp-Param-Region` header, which the server checks.
  server.registerTool(
    "test_x_mcp_header",
    {
      description: "An argument mirrored into a header",
      inputSchema: fromJsonSchema<{ region?: string; level?: number }>({
        type: "object",
        properties: {
          region: { type: "string", description: "mirrored", "x-mcp-header": "Region" },
          level: { type: "integer", description: "not mirrored" },
        },
      } as JsonSchemaType),
      annotations: { readOnlyHint: true },
    },
    async (args) => text(`region=${args.region ?? "<none>"}`),
  );
  server.registerTool(
    "json_schema_2020_12_tool",
    {
      description: "A tool whose input schema uses JSON Schema 2020-12 keywords",
      inputSchema: fromJsonSchema(SCHEMA_2020_12 as unknown as JsonSchemaType),
      annotations: { readOnlyHint: true },
    },
    async (args) => text(`JSON Schema 2020-12 tool called with: ${JSON.stringify(args)}`),
  );
}

/** Register the tools that notify while they run: log messages and progress. */
function notifyingTools(server: McpServer): void {
  const options = { inputSchema: fromJsonSchema(NO_ARGS), annotations: { readOnlyHint: true } };
  server.registerTool(
    "test_tool_with_logging",
    { description: "Three log messages, then a result", ...options },
    async (_args, ctx) => {
      for (const data of [
        "Tool execution started",
        "Tool processing data",
        "Tool execution completed",
      ]) {
        await ctx.mcpReq.notify({
          method: "notifications/message",
          params: { level: "info", data },
        });
        await pause(20);
      }
      return text("Tool with logging executed successfully");
    },
  );
  server.registerTool(
    "test_tool_with_progress",
    { description: "Progress 0, 50, 100 for the request's token, then a result", ...options },
    async (_args, ctx) => {
      const progressToken = ctx.mcpReq._meta?.progressToken;
      // A server sends progress only for a token the client sent (MCP, "Progress").
      if (progressToken !== undefined) {
        for (const progress of [0, 50, 100]) {
          await ctx.mcpReq.notify({
            method: "notifications/progress",
            params: { progressToken, progress, total: 100, message: `step ${progress}` },
          });
          await pause(20);
        }
      }
      return text(String(progressToken ?? "no-progress-token"));
    },
  );
  server.registerTool(
    "test_logging_tool",
    { description: "Logs through the request's level-gated channel", ...options },
    async (_args, ctx) => {
      await ctx.mcpReq.log("info", "test_logging_tool ran");
      return text("logged");
    },
  );
}

/** Register the tools that ask the client during the call (2025-era requests to the client). */
function askingTools(server: McpServer): void {
  const annotations = { readOnlyHint: true };
  const ask = (
    name: string,
    args: JsonSchemaType,
    request: (args: Record<string, unknown>) => {
      method: "elicitation/create" | "sampling/createMessage";
      params: Record<string, unknown>;
    },
    answer: (result: Record<string, unknown>) => string,
  ) =>
    server.registerTool(
      name,
      { description: `Asks the client (${name})`, inputSchema: fromJsonSchema(args), annotations },
      async (a, ctx) => {
        try {
          const result = await ctx.mcpReq.send(request(a as Record<string, unknown>));
          return text(answer(result as Record<string, unknown>));
        } catch (e) {
          return text(`The client could not answer: ${(e as Error).message}`);
        }
      },
    );
  const prompt = {
    type: "object",
    properties: { prompt: { type: "string" } },
    required: ["prompt"],
  };
  ask(
    "test_sampling",
    prompt as JsonSchemaType,
    (a) => ({
      method: "sampling/createMessage",
      params: {
        messages: [{ role: "user", content: { type: "text", text: String(a.prompt) } }],
        maxTokens: 100,
      },
    }),
    (r) => `LLM response: ${(r.content as { text?: string } | undefined)?.text ?? "No response"}`,
  );
  const message = {
    type: "object",
    properties: { message: { type: "string" } },
    required: ["message"],
  };
  ask(
    "test_elicitation",
    message as JsonSchemaType,
    (a) => ({
      method: "elicitation/create",
      params: { message: String(a.message), requestedSchema: oneField("response") },
    }),
    (r) => answerText("User response", r),
  );
  ask(
    "test_elicitation_sep1034_defaults",
    NO_ARGS,
    () => ({
      method: "elicitation/create",
      params: {
        message: "Review the fields and their defaults",
        requestedSchema: {
          type: "object",
          properties: {
            name: { type: "string", description: "User name", default: "John Doe" },
            age: { type: "integer", description: "User age", default: 30 },
            score: { type: "number", description: "User score", default: 95.5 },
            status: {
              type: "string",
              description: "User status",
              enum: ["active", "inactive", "pending"],
              default: "active",
            },
            verified: { type: "boolean", description: "Verification status", default: true },
          },
          required: [],
        },
      },
    }),
    (r) => answerText("Elicitation completed", r),
  );
  const titled = (prefix: string) =>
    [1, 2, 3].map((n) => ({ const: `value${n}`, title: `${prefix} ${n}` }));
  const options = ["option1", "option2", "option3"];
  ask(
    "test_elicitation_sep1330_enums",
    NO_ARGS,
    () => ({
      method: "elicitation/create",
      params: {
        message: "Pick from each list",
        requestedSchema: {
          type: "object",
          properties: {
            untitledSingle: { type: "string", description: "One option", enum: options },
            titledSingle: { type: "string", description: "One titled", oneOf: titled("Option") },
            legacyEnum: {
              type: "string",
              description: "One (legacy titles)",
              enum: ["opt1", "opt2", "opt3"],
              enumNames: ["Option One", "Option Two", "Option Three"],
            },
            untitledMulti: {
              type: "array",
              description: "Several options",
              minItems: 1,
              maxItems: 3,
              items: { type: "string", enum: options },
            },
            titledMulti: {
              type: "array",
              description: "Several titled",
              minItems: 1,
              maxItems: 3,
              items: { anyOf: titled("Choice") },
            },
          },
          required: [],
        },
      },
    }),
    (r) => answerText("Elicitation completed", r),
  );
}

/** Register the 2026-07-28 multi round-trip tools (input-required results, SEP-2322). */
function inputRequiredTools(server: McpServer, shared: Shared): void {
  const options = { inputSchema: fromJsonSchema(NO_ARGS), annotations: { readOnlyHint: true } };
  const register = (
    name: string,
    run: (ctx: ServerContext) => Promise<CallToolResult | InputRequiredResult>,
  ) =>
    server.registerTool(
      name,
      { description: `Input-required rounds (${name})`, ...options },
      (_a, ctx) => run(ctx),
    );
  const askName = () =>
    inputRequired.elicit({ message: "What is your name?", requestedSchema: oneField("name") });
  const confirm = () =>
    inputRequired.elicit({
      message: "Please confirm",
      requestedSchema: {
        type: "object",
        properties: { ok: { type: "boolean" } },
        required: ["ok"],
      },
    });
  const mint = (payload: Record<string, unknown>) =>
    shared.codec.mint({ ...payload, nonce: randomUUID() });

  register("test_input_required_result_elicitation", async (ctx) => {
    const name = acceptedContent<{ name: string }>(ctx.mcpReq.inputResponses, "user_name")?.name;
    if (typeof name === "string") return text(`Hello, ${name}!`);
    return inputRequired({ inputRequests: { user_name: askName() } });
  });
  register("test_input_required_result_sampling", async (ctx) => {
    const answer = ctx.mcpReq.inputResponses?.capital_question as
      | { content?: { text?: string } }
      | undefined;
    if (answer !== undefined) return text(`Sampling response: ${answer.content?.text ?? ""}`);
    const messages = [
      { role: "user" as const, content: { type: "text" as const, text: "Capital of France?" } },
    ];
    return inputRequired({
      inputRequests: {
        capital_question: inputRequired.createMessage({ messages, maxTokens: 100 }),
      },
    });
  });
  register("test_input_required_result_list_roots", async (ctx) => {
    const answer = ctx.mcpReq.inputResponses?.client_roots as { roots?: { uri?: string }[] };
    if (Array.isArray(answer?.roots)) {
      return text(`Client exposed ${answer.roots.length} root(s)`);
    }
    return inputRequired({ inputRequests: { client_roots: inputRequired.listRoots() } });
  });
  register("test_input_required_result_request_state", async (ctx) => {
    if (acceptedContent(ctx.mcpReq.inputResponses, "confirm") === undefined) {
      return inputRequired({
        inputRequests: { confirm: confirm() },
        requestState: await mint({ tool: "request_state" }),
      });
    }
    if (ctx.mcpReq.requestState() === undefined) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, "Invalid requestState");
    }
    return text("state-ok: requestState verified and confirmation received");
  });
  register("test_input_required_result_multiple_inputs", async (ctx) => {
    const responses = ctx.mcpReq.inputResponses;
    const name = acceptedContent<{ name: string }>(responses, "user_name")?.name;
    const greeting = (responses?.greeting as { content?: { text?: string } } | undefined)?.content
      ?.text;
    const roots = (responses?.client_roots as { roots?: unknown[] } | undefined)?.roots;
    if (typeof name === "string" && typeof greeting === "string" && Array.isArray(roots)) {
      return text(`${greeting} ${name}, ${roots.length} root(s)`);
    }
    const messages = [
      { role: "user" as const, content: { type: "text" as const, text: "Generate a greeting" } },
    ];
    return inputRequired({
      inputRequests: {
        user_name: askName(),
        greeting: inputRequired.createMessage({ messages, maxTokens: 50 }),
        client_roots: inputRequired.listRoots(),
      },
      requestState: await mint({ tool: "multiple_inputs" }),
    });
  });
  register("test_input_required_result_multi_round", async (ctx) => {
    const state = ctx.mcpReq.requestState<Record<string, unknown>>();
    const round =
      state?.tool === "multi_round" && typeof state.round === "number" ? state.round : 0;
    if (round === 0) {
      return inputRequired({
        inputRequests: {
          step1: inputRequired.elicit({
            message: "Step 1: your name?",
            requestedSchema: oneField("name"),
          }),
        },
        requestState: await mint({ tool: "multi_round", round: 1 }),
      });
    }
    if (round === 1) {
      const name =
        acceptedContent<{ name: string }>(ctx.mcpReq.inputResponses, "step1")?.name ?? "unknown";
      return inputRequired({
        inputRequests: {
          step2: inputRequired.elicit({
            message: "Step 2: your favourite colour?",
            requestedSchema: oneField("color"),
          }),
        },
        requestState: await mint({ tool: "multi_round", round: 2, name }),
      });
    }
    const color =
      acceptedContent<{ color: string }>(ctx.mcpReq.inputResponses, "step2")?.color ?? "unknown";
    return text(`Multi-round complete: ${String(state?.name)} likes ${color}`);
  });
  register("test_input_required_result_tampered_state", async (ctx) => {
    if (
      ctx.mcpReq.requestState() !== undefined &&
      acceptedContent(ctx.mcpReq.inputResponses, "confirm") !== undefined
    ) {
      return text("integrity-ok: requestState verified");
    }
    return inputRequired({
      inputRequests: { confirm: confirm() },
      requestState: await mint({ tool: "tampered_state" }),
    });
  });
  register("test_input_required_result_capabilities", async (ctx) => {
    if (ctx.mcpReq.inputResponses !== undefined) return text("Capability-aware input fulfilled");
    // The SDK types the envelope without its keys; it holds what the request's `_meta` carried.
    const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
    const declared = envelope?.[CLIENT_CAPABILITIES_META_KEY] as
      | Record<string, unknown>
      | undefined;
    const inputRequests: InputRequests = {};
    if (declared?.elicitation !== undefined) inputRequests.user_name = askName();
    if (declared?.sampling !== undefined) {
      const messages = [
        { role: "user" as const, content: { type: "text" as const, text: "A short greeting" } },
      ];
      inputRequests.greeting = inputRequired.createMessage({ messages, maxTokens: 50 });
    }
    if (declared?.roots !== undefined) inputRequests.client_roots = inputRequired.listRoots();
    if (Object.keys(inputRequests).length === 0) return text("No declared capability to ask with");
    return inputRequired({ inputRequests });
  });
  register("test_missing_capability", async (ctx) => {
    if (ctx.mcpReq.inputResponses?.llm_answer !== undefined) return text("sampling complete");
    const messages = [{ role: "user" as const, content: { type: "text" as const, text: "pong?" } }];
    return inputRequired({
      inputRequests: { llm_answer: inputRequired.createMessage({ messages, maxTokens: 16 }) },
    });
  });
  register("test_trigger_tool_change", async () => {
    shared.notify().toolsChanged();
    return text("tools_list_changed published");
  });
  register("test_trigger_prompt_change", async () => {
    shared.notify().promptsChanged();
    return text("prompts_list_changed published");
  });
}

/** Register the resources (static, binary, a template, one to subscribe to). */
function resources(server: McpServer): void {
  const fixed = (
    name: string,
    uri: string,
    mimeType: string,
    body: { text: string } | { blob: string },
  ) =>
    server.registerResource(
      name,
      uri,
      { title: name, description: `The ${name} resource`, mimeType },
      async () => ({
        contents: [{ uri, mimeType, ...body }],
      }),
    );
  fixed("static-text", "test://static-text", "text/plain", {
    text: "This is the content of the static text resource.",
  });
  fixed("static-binary", "test://static-binary", "image/png", { blob: PNG });
  fixed("watched-resource", "test://watched-resource", "text/plain", {
    text: "Watched resource content",
  });
  server.registerResource(
    "template",
    new ResourceTemplate("test://template/{id}/data", { list: undefined }),
    { title: "template", description: "Data by id", mimeType: "application/json" },
    async (uri, { id }) => ({
      contents: [
        {
          uri: uri.toString(),
          mimeType: "application/json",
          text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
        },
      ],
    }),
  );
  server.server.setRequestHandler("resources/subscribe", async () => ({}));
  server.server.setRequestHandler("resources/unsubscribe", async () => ({}));
}

/** Register the prompts (plain, with arguments, with a resource, with an image). */
function prompts(server: McpServer): void {
  const user = (content: GetPromptResult["messages"][number]["content"]) => ({
    role: "user" as const,
    content,
  });
  server.registerPrompt("test_simple_prompt", { description: "No arguments" }, async () => ({
    messages: [user({ type: "text", text: "This is a simple prompt for testing." })],
  }));
  server.registerPrompt(
    "test_prompt_with_arguments",
    {
      description: "Two arguments",
      argsSchema: fromJsonSchema<{ arg1: string; arg2: string }>({
        type: "object",
        properties: {
          arg1: { type: "string", description: "First argument" },
          arg2: { type: "string", description: "Second argument" },
        },
        required: ["arg1", "arg2"],
      }),
    },
    async ({ arg1, arg2 }) => ({
      messages: [
        user({ type: "text", text: `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'` }),
      ],
    }),
  );
  server.registerPrompt(
    "test_prompt_with_embedded_resource",
    {
      description: "A resource, then text",
      argsSchema: fromJsonSchema<{ resourceUri: string }>({
        type: "object",
        properties: { resourceUri: { type: "string", description: "URI to embed" } },
        required: ["resourceUri"],
      }),
    },
    async ({ resourceUri }) => ({
      messages: [
        user({
          type: "resource",
          resource: {
            uri: resourceUri,
            mimeType: "text/plain",
            text: "Embedded resource content.",
          },
        }),
        user({ type: "text", text: "Please process the embedded resource above." }),
      ],
    }),
  );
  // Prompts have input-required results on 2026-07-28 too (SEP-2322).
  server.registerPrompt(
    "test_input_required_result_prompt",
    { description: "Asks for context before it renders" },
    async (ctx) => {
      const { mcpReq } = ctx as unknown as ServerContext;
      const context = acceptedContent<{ context: string }>(mcpReq.inputResponses, "user_context");
      if (typeof context?.context === "string") {
        return { messages: [user({ type: "text", text: `Use this context: ${context.context}` })] };
      }
      return inputRequired({
        inputRequests: {
          user_context: inputRequired.elicit({
            message: "What context should the prompt use?",
            requestedSchema: oneField("context"),
          }),
        },
      });
    },
  );
  server.registerPrompt(
    "test_prompt_with_image",
    { description: "An image, then text" },
    async () => ({
      messages: [
        user({ type: "image", data: PNG, mimeType: "image/png" }),
        user({ type: "text", text: "Please analyze the image above." }),
      ],
    }),
  );
}

/** One MCP server instance (per 2025-era session, per 2026-07-28 request). */
function conformanceServer(shared: Shared): McpServer {
  const server = new McpServer(
    { name: "toolfence-conformance-upstream", version: "1.0.0" },
    {
      capabilities: {
        tools: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        prompts: { listChanged: true },
        logging: {},
        completions: {},
      },
      requestState: { verify: shared.codec.verify },
    },
  );
  contentTools(server);
  notifyingTools(server);
  askingTools(server);
  inputRequiredTools(server, shared);
  resources(server);
  prompts(server);
  server.server.setRequestHandler("logging/setLevel", async () => ({}));
  server.server.setRequestHandler("completion/complete", async () => ({
    completion: { values: [], total: 0, hasMore: false },
  }));
  return server;
}

/** The request Node received, as a web Request with the body already read. */
async function webRequest(
  req: IncomingMessage,
  origin: string,
): Promise<{ request: Request; body: string }> {
  let body = "";
  for await (const chunk of req) body += (chunk as Buffer).toString("utf8");
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === "string") headers.set(name, value);
    else if (Array.isArray(value)) headers.set(name, value.join(", "));
  }
  const init: RequestInit = { method: req.method ?? "GET", headers };
  if (body !== "" && init.method !== "GET") init.body = body;
  return { request: new Request(new URL(req.url ?? "/", origin), init), body };
}

/** Write a web Response to Node's response, streaming its body (SSE included). */
async function send(response: Response, res: ServerResponse): Promise<void> {
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (response.body === null) return void res.end();
  const reader = response.body.getReader();
  res.on("close", () => void reader.cancel().catch(() => undefined));
  for (;;) {
    const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
    if (done) break;
    res.write(value);
  }
  res.end();
}

/** A running conformance upstream. */
export interface ConformanceServer {
  /** Its MCP endpoint, `http://127.0.0.1:PORT/mcp`. */
  url: string;
  /** Stop listening and end every session. */
  close: () => Promise<void>;
}

/** Start the server on a free loopback port. */
export async function startConformanceServer(): Promise<ConformanceServer> {
  let handler: ReturnType<typeof createMcpHandler> | undefined;
  const shared: Shared = {
    codec: createRequestStateCodec<Record<string, unknown>>({
      key: crypto.getRandomValues(new Uint8Array(32)),
    }),
    notify: () => (handler as ReturnType<typeof createMcpHandler>).notify,
  };
  handler = createMcpHandler(() => conformanceServer(shared), { legacy: "reject" });
  const modern = handler;
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  const serve = async (req: IncomingMessage, res: ServerResponse, origin: string) => {
    const { request, body } = await webRequest(req, origin);
    // DNS-rebinding defence: loopback host names only, as a local server must.
    const rebinding = hostHeaderValidationResponse(request, localhostAllowedHostnames());
    if (rebinding !== undefined) return send(rebinding, res);
    let parsed: unknown;
    try {
      parsed = body === "" ? undefined : JSON.parse(body);
    } catch {
      parsed = undefined;
    }
    const header = (name: string) => request.headers.get(name) ?? undefined;
    const route = classifyInboundRequest({
      httpMethod: request.method,
      protocolVersionHeader: header("mcp-protocol-version"),
      mcpMethodHeader: header("mcp-method"),
      mcpNameHeader: header("mcp-name"),
      body: parsed,
    });
    if (route.kind !== "legacy")
      return send(await modern.fetch(request, { parsedBody: parsed }), res);
    const id = header("mcp-session-id");
    let transport = id === undefined ? undefined : sessions.get(id);
    if (transport === undefined) {
      if (id !== undefined || request.method !== "POST" || !isInitializeRequest(parsed)) {
        const status = id === undefined ? 400 : 404;
        const message = id === undefined ? "Bad Request: no session" : "Session not found";
        return send(
          Response.json({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }, { status }),
          res,
        );
      }
      const fresh = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => void sessions.set(sid, fresh),
      });
      fresh.onclose = () => {
        if (fresh.sessionId !== undefined) sessions.delete(fresh.sessionId);
      };
      await conformanceServer(shared).connect(fresh);
      transport = fresh;
    }
    return send(await transport.handleRequest(request, { parsedBody: parsed }), res);
  };
  const server = createServer((req, res) => {
    const origin = `http://${req.headers.host ?? "127.0.0.1"}`;
    serve(req, res, origin).catch((e: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "Content-Type": "text/plain" });
      res.end(String(e));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: async () => {
      for (const t of sessions.values()) await t.close().catch(() => undefined);
      await modern.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
