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

/**
 * Names a documented snippet uses without defining them (the surrounding program's), declared
 * in front of any snippet that does not bind them itself.
 */
const CONTEXT: Record<string, string> = {
  url: "declare const url: string;",
  key: "declare const key: string;",
  model: "declare const model: string;",
  prompt: "declare const prompt: string;",
  name: "declare const name: string;",
  instructions: "declare const instructions: string;",
  input: "declare const input: string;",
  generateText: 'import { generateText } from "ai";',
  isStepCount: 'import { isStepCount } from "ai";',
  Agent: 'import { Agent } from "@openai/agents";',
  runAgent: 'import { run as runAgent } from "@openai/agents";',
};

/** Every TypeScript snippet of a markdown file that imports the package, in order. */
function snippets(markdown: string): string[] {
  const blocks = [
    ...readFileSync(join(ROOT, markdown), "utf8").matchAll(/^```ts\n([\s\S]*?)^```$/gm),
  ];
  return blocks.map((b) => b[1] ?? "").filter((code) => code.includes('from "toolfence/'));
}

/** A snippet as a module of its own: the context it does not bind, then the snippet as written. */
function asModule(code: string): string {
  const binds = (n: string) =>
    new RegExp(`(import\\s*\\{[^}]*\\b|(const|let|function)\\s+|\\bas\\s+)${n}\\b`).test(code);
  const context = Object.entries(CONTEXT).filter(([n]) => !binds(n));
  return `${context.map(([, line]) => line).join("\n")}\n${code}`;
}

/** The documented snippets: the README's and docs/clients.md's, by file name. */
const DOCUMENTED = Object.fromEntries(
  (["README.md", "docs/clients.md"] as const).flatMap((md) =>
    snippets(md).map((code, i) => [`${md.replace(/\W+/g, "-")}-${i + 1}.ts`, code]),
  ),
);

/** The client snippet of docs/clients.md with one wrong thing each: each must not compile. */
const MUTATIONS = [
  { file: "wrong-name.ts", from: '"create_ticket"', to: '"create_tickets"' },
  { file: "wrong-argument.ts", from: 'priority: "high"', to: 'priority: "HIGH"' },
];

let scratch = "";
let installed = "";

/** The packed tarball, installed into a scratch project beside the adapters' SDKs. */
beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), "toolfence-pack-"));
  // `npm pack` builds first (`prepack`), and its build speaks on stdout too: find the tarball.
  await run("npm", ["pack", "--pack-destination", scratch], { cwd: ROOT });
  const packed = readdirSync(scratch).find((f) => f.endsWith(".tgz"));
  writeFileSync(join(scratch, "package.json"), '{ "private": true, "type": "module" }');
  // The registry's current @types/node of the Node line the project runs on (24; the snippets
  // read `process.env`); with 26's, @openai/agents 0.20's own declarations do not type-check.
  // Installed with the tarball, since a later install prunes the links below.
  const install = ["install", "--prefer-offline", "--no-audit", "--no-fund"];
  await run("npm", [...install, `./${packed}`, "@types/node@24"], { cwd: scratch });
  // The SDKs are the consumer's own; the workspace's copies stand in for them.
  for (const sdk of ["ai", "@openai/agents"]) {
    mkdirSync(dirname(join(scratch, "node_modules", sdk)), { recursive: true });
    symlinkSync(join(ROOT, "node_modules", sdk), join(scratch, "node_modules", sdk), "dir");
  }
  writeFileSync(join(scratch, "calls.mjs"), CALLS);
  writeFileSync(join(scratch, "typed.ts"), TYPED);
  writeFileSync(join(scratch, "tsconfig.json"), '{ "include": ["typed.ts"] }');
  installed = join(scratch, "node_modules/toolfence");
  await documentedProject();
}, 180_000);

/**
 * The documented snippets in the scratch project, beside the types generated for the demo's
 * tools: one project of them as written, one of the mutated client snippet, and one of them
 * without the generated types.
 */
async function documentedProject() {
  const types = join(scratch, "toolfence-tools.d.ts");
  const generate = ["scripts/contracts.ts", "types", "--dir", "demo/contracts", "--out", types];
  await run(NODES[24], generate, { cwd: ROOT });
  for (const folder of ["documented", "mutated"]) mkdirSync(join(scratch, folder));
  for (const [file, code] of Object.entries(DOCUMENTED)) {
    writeFileSync(join(scratch, "documented", file), asModule(code));
  }
  const client = DOCUMENTED["docs-clients-md-1.ts"] ?? "";
  for (const m of MUTATIONS) {
    if (!client.includes(m.from)) throw new Error(`the client snippet has no ${m.from}`);
    writeFileSync(join(scratch, "mutated", m.file), asModule(client.replace(m.from, m.to)));
  }
  // TypeScript 6 and later load no @types package unless `types` names it: Node's is named.
  const project = (include: string[]) =>
    JSON.stringify({ compilerOptions: { types: ["node"] }, include });
  writeFileSync(
    join(scratch, "tsconfig.documented.json"),
    project(["documented", "toolfence-tools.d.ts"]),
  );
  writeFileSync(
    join(scratch, "tsconfig.mutated.json"),
    project(["mutated", "toolfence-tools.d.ts"]),
  );
  writeFileSync(join(scratch, "tsconfig.bare.json"), project(["documented"]));
}

/** tsc's report on one project of the scratch folder: its exit code and its errors. */
async function typecheck(project: string): Promise<{ code: number; errors: string }> {
  const tsc = join(ROOT, "node_modules/.bin/tsc");
  return run(tsc, ["--noEmit", "-p", project], { cwd: scratch }).then(
    ({ stdout }) => ({ code: 0, errors: stdout }),
    (e: { code: number; stdout: string }) => ({ code: e.code, errors: e.stdout }),
  );
}

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

  it("type-checks the README's and docs/clients.md's snippets with the generated types", async () => {
    expect(Object.keys(DOCUMENTED)).toEqual([
      "README-md-1.ts",
      "docs-clients-md-1.ts",
      "docs-clients-md-2.ts",
      "docs-clients-md-3.ts",
    ]);
    expect(await typecheck("tsconfig.documented.json")).toEqual({ code: 0, errors: "" });
  }, 180_000);

  it("refuses a wrong tool name or argument in the documented client code", async () => {
    const { code, errors } = await typecheck("tsconfig.mutated.json");
    expect(code).not.toBe(0);
    for (const m of MUTATIONS) {
      const text = readFileSync(join(scratch, "mutated", m.file), "utf8");
      const line = text.split("\n").findIndex((l) => l.includes(m.to)) + 1;
      expect(errors).toMatch(
        new RegExp(`^mutated/${m.file.replace(".", "\\.")}\\(${line},\\d+\\): error TS`, "m"),
      );
    }
    // Nothing else fails: every error is in a mutated snippet (a wrong name also loses the
    // result's type further down).
    for (const at of errors.match(/^\S+(?=\(\d+,\d+\): error)/gm) ?? []) {
      expect(at).toMatch(/^mutated\//);
    }
  }, 180_000);

  it("needs the generated types for the demo's tools", async () => {
    const { code, errors } = await typecheck("tsconfig.bare.json");
    expect(code).not.toBe(0);
    expect(errors).toContain(`'"create_ticket"' is not assignable`);
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
