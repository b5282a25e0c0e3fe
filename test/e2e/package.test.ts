import { execFile } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createClient } from "../../client/index.ts";

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, "../..");
/** The system's `node` (20): the first on PATH outside a node_modules, where npx puts 24. */
function systemNode(): string {
  const dirs = (process.env.PATH ?? "").split(delimiter).filter((d) => !d.includes("node_modules"));
  const dir = dirs.find((d) => existsSync(join(d, "node")));
  return dir === undefined ? "node" : join(dir, "node");
}

/** The system's Node and the project's own (the `node` devDependency, 24). */
const NODES = { 20: systemNode(), 24: join(ROOT, "node_modules/.bin/node") };

/**
 * What a consumer writes, as plain JavaScript: one call through each entry point named on the
 * command line, against the fence at FENCE_URL, each answer printed as one JSON line.
 */
const CALLS = `
const [url, runId, ...entries] = process.argv.slice(2);
const { createClient } = await import("toolfence/client");
const run = createClient({ url, key: "tf_dev_local_key" }).run(runId);
const out = { node: process.versions.node };
for (const entry of entries) {
  if (entry === "client") out.client = await run.call("noop", { note: "client" });
  if (entry === "ai") {
    const { fenceTools } = await import("toolfence/ai");
    const tools = await fenceTools(run);
    out.ai = await tools.noop.execute({ note: "ai" }, { toolCallId: "c-ai", messages: [] });
  }
  if (entry === "openai-agents") {
    const { fenceAgentTools } = await import("toolfence/openai-agents");
    const { RunContext } = await import("@openai/agents");
    const noop = (await fenceAgentTools(run)).find((t) => t.name === "noop");
    out["openai-agents"] = JSON.parse(await noop.invoke(new RunContext(), '{"note":"agents"}'));
  }
}
console.log(JSON.stringify(out));
`;

/** What a consumer writes in TypeScript: each `@ts-expect-error` needs the real types. */
const TYPED = `
import { type CallOutcome, createClient, type ToolArgs } from "toolfence/client";
import { fenceTools } from "toolfence/ai";
import { fenceAgentTools } from "toolfence/openai-agents";

const run = createClient({ url: "http://127.0.0.1:1", key: "k" }).run("r");
const args: ToolArgs<"noop"> = { note: "hi" };
export const outcome: Promise<CallOutcome<"noop">> = run.call("noop", args);
// @ts-expect-error: no tool of this name
run.call("delete_everything", {});
// @ts-expect-error: noop's note is text
run.call("noop", { note: 1 });
export const tools = [fenceTools(run), fenceAgentTools(run)];
`;

let scratch = "";
let installed = "";

/** The packed tarball, installed into a scratch project beside the adapters' SDKs. */
beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), "toolfence-pack-"));
  // `npm pack` builds first (`prepack`), and its build speaks on stdout too: find the tarball.
  await run("npm", ["pack", "--pack-destination", scratch], { cwd: ROOT });
  const packed = readdirSync(scratch).find((f) => f.endsWith(".tgz"));
  writeFileSync(join(scratch, "package.json"), '{ "private": true, "type": "module" }');
  await run("npm", ["install", "--offline", "--no-audit", "--no-fund", `./${packed}`], {
    cwd: scratch,
  });
  // The SDKs are the consumer's own; the workspace's copies stand in for them.
  for (const sdk of ["ai", "@openai/agents"]) {
    mkdirSync(dirname(join(scratch, "node_modules", sdk)), { recursive: true });
    symlinkSync(join(ROOT, "node_modules", sdk), join(scratch, "node_modules", sdk), "dir");
  }
  writeFileSync(join(scratch, "calls.mjs"), CALLS);
  writeFileSync(join(scratch, "typed.ts"), TYPED);
  writeFileSync(join(scratch, "tsconfig.json"), '{ "include": ["typed.ts"] }');
  installed = join(scratch, "node_modules/toolfence");
}, 180_000);

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** Run the consumer's script under one Node, calling through `entries`. */
async function calls(node: string, runId: string, entries: string[]) {
  const args = ["calls.mjs", inject("fenceUrl"), runId, ...entries];
  const { stdout } = await run(node, args, { cwd: scratch });
  return JSON.parse(stdout) as Record<string, unknown> & { node: string };
}

describe("the packed client package", () => {
  it("holds the built JavaScript and declarations, and depends on nothing", () => {
    const manifest = JSON.parse(readFileSync(join(installed, "package.json"), "utf8"));
    expect(manifest.dependencies ?? {}).toEqual({});
    const files = readdirSync(installed, { recursive: true, encoding: "utf8" }).join("\n");
    for (const entry of ["client", "ai", "openai-agents"]) {
      expect(files).toMatch(new RegExp(`^dist/${entry}\\.js$`, "m"));
      expect(files).toMatch(new RegExp(`^dist/${entry}\\.d\\.ts$`, "m"));
    }
    expect(files).not.toMatch(/^(src|contracts|client|test|docs|scripts)$/m);
    expect(files).not.toMatch(/\.png$|(?<!\.d)\.ts$/m);
  });

  for (const [major, node] of Object.entries(NODES)) {
    it(`makes a call through each entry point under plain Node ${major}`, async () => {
      const runId = `pack-${major}-${crypto.randomUUID()}`;
      const out = await calls(node, runId, ["client", "ai", "openai-agents"]);
      expect(out.node.split(".")[0]).toBe(major);
      expect(out.client).toMatchObject({ decision: "applied", result: { ok: true }, status: 200 });
      expect(out.ai).toEqual({ ok: true });
      expect(out["openai-agents"]).toEqual({ ok: true });
      const audit = await createClient({ url: inject("fenceUrl"), key: "tf_dev_local_key" })
        .run(runId)
        .audit();
      if (!("entries" in audit)) throw new Error(`audit refused: ${audit.reason}`);
      const notes = audit.entries.map((e) => JSON.parse(e.payload).args.note);
      expect(notes).toEqual(["client", "ai", "agents"]);
    });
  }

  it("type-checks a consumer's code under tsc's default settings", async () => {
    const tsc = join(ROOT, "node_modules/.bin/tsc");
    await expect(run(tsc, ["--noEmit", "-p", "."], { cwd: scratch })).resolves.toBeDefined();
  }, 180_000);

  it("runs toolfence/openai-agents in a project without the AI SDK", async () => {
    const bare = mkdtempSync(join(tmpdir(), "toolfence-agents-"));
    try {
      // The same install without `ai` (copied: Node resolves a symlink from its real path).
      writeFileSync(join(bare, "calls.mjs"), CALLS);
      writeFileSync(join(bare, "package.json"), '{ "private": true, "type": "module" }');
      mkdirSync(join(bare, "node_modules/@openai"), { recursive: true });
      cpSync(installed, join(bare, "node_modules/toolfence"), { recursive: true });
      symlinkSync(
        join(ROOT, "node_modules/@openai/agents"),
        join(bare, "node_modules/@openai/agents"),
        "dir",
      );
      const out = await run(NODES[20], [
        join(bare, "calls.mjs"),
        inject("fenceUrl"),
        `pack-bare-${crypto.randomUUID()}`,
        "openai-agents",
      ]);
      expect(JSON.parse(out.stdout)["openai-agents"]).toEqual({ ok: true });
    } finally {
      rmSync(bare, { recursive: true, force: true });
    }
  });
});
