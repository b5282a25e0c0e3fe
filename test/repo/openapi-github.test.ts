import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { catalogue } from "../../src/core/catalogue.ts";
import type { ToolContract } from "../../src/core/contract.ts";
import { validateArgs, validateOutput } from "../../src/core/validate.ts";

// GitHub's REST API description, as @octokit/openapi ships it (test/fixtures/openapi/github).
const ROOT = resolve(import.meta.dirname, "../..");
const FIXTURE = join(ROOT, "test/fixtures/openapi/github/api.github.com.json.gz");
const SHA256 = "829b4bebb19a53133289f7b0bc819f4f1118115821db2ca9f25e9ee995a7da2a";
// Inside the project, so generated files resolve valibot; ignored by git.
const dir = mkdtempSync(join(ROOT, "test/repo/.imported-"));
const out = join(dir, "github");

type Node = Record<string, unknown>;
let description: Node;
let imported: { code: number; stdout: string; stderr: string };

beforeAll(async () => {
  const json = gunzipSync(readFileSync(FIXTURE));
  expect(createHash("sha256").update(json).digest("hex")).toBe(SHA256);
  writeFileSync(join(dir, "api.github.com.json"), json);
  description = JSON.parse(json.toString("utf8")) as Node;
  const args = ["scripts/contracts.ts", "import", "--openapi", join(dir, "api.github.com.json")];
  imported = await promisify(execFile)(process.execPath, [...args, "--out", out], {
    cwd: ROOT,
    maxBuffer: 16 * 1024 * 1024,
  }).then(
    (r) => ({ code: 0, ...r }),
    (e: { code: number; stdout: string; stderr: string }) => e,
  );
}, 120_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A local `$ref` of the description, resolved (`#/components/examples/…`). */
function resolved(node: unknown): Node {
  const ref = (node as Node).$ref;
  if (typeof ref !== "string") return node as Node;
  return ref
    .slice(2)
    .split("/")
    .reduce<Node>((at, part) => at[part] as Node, description);
}

/** The description's own example of an operation's request body or 2xx answer. */
function example(path: string, method: string, part: "requestBody" | "200" | "201"): Node {
  const op = (description.paths as Record<string, Record<string, Node>>)[path]?.[method] ?? {};
  const holder = part === "requestBody" ? op.requestBody : (op.responses as Node)[part];
  const media = ((holder as Node).content as Record<string, Node>)["application/json"] ?? {};
  const first = Object.values(media.examples as Node)[0];
  return resolved(first).value as Node;
}

async function load(name: string): Promise<ToolContract> {
  const href = pathToFileURL(join(out, `${name}.ts`)).href;
  return Object.values((await import(href)) as Record<string, ToolContract>)[0] as ToolContract;
}

/** The paths of the issues the gate refused a value with, or [] when it passed. */
function refusedAt(checked: ReturnType<typeof validateArgs>): string[] {
  return checked.ok ? [] : (checked.error.issues ?? []).map((i) => i.path);
}

describe("contracts import --openapi of GitHub's REST API description", () => {
  it("writes every operation it can enforce and reports each other one with its reasons", () => {
    const operations = Object.values(description.paths as Record<string, Node>).flatMap((item) =>
      ["get", "put", "post", "delete", "patch", "head", "options", "trace"].filter(
        (m) => item[m] !== undefined,
      ),
    ).length;
    const written = readdirSync(out).length;
    const refused = imported.stderr.match(/^refused \S+: it cannot be imported strictly$/gm) ?? [];
    expect(imported.code).toBe(1);
    expect(written + refused.length).toBe(operations);
    expect(imported.stdout).toContain(`${written} written, ${refused.length} refused`);
    // Each refused operation is followed by at least one reason, on its own indented line.
    expect(imported.stderr).not.toMatch(/^refused .*\n(?! {2}\S)/m);
    // The kinds the contract language cannot express, named per operation and node.
    expect(imported.stderr).toContain(
      'issues_create.output.performed_via_github_app.owner: "oneOf" cannot be enforced exactly',
    );
    expect(imported.stderr).toContain(
      "repos_delete.responses: no 2xx application/json response to check the answer with",
    );
  });

  it("writes contracts that all load and publish their JSON Schema", async () => {
    const names = readdirSync(out).map((f) => f.replace(/\.ts$/, ""));
    const tools = await Promise.all(names.map(load));
    expect(tools.map((t) => t.name)).toEqual(names);
    const listed = catalogue(tools, "json") as { tools: { name: string }[] };
    expect(listed.tools.map((t) => t.name)).toEqual(names);
  }, 120_000);

  it("passes the description's own recorded requests and answers through the gate", async () => {
    const comment = example("/gists/{gist_id}/comments", "post", "201");
    const gistId = String(comment.url).split("/")[4];
    const createComment = await load("gists_create_comment");
    const sent = {
      gist_id: gistId,
      ...example("/gists/{gist_id}/comments", "post", "requestBody"),
    };
    expect(validateArgs(createComment, sent).ok).toBe(true);
    expect(validateOutput(createComment, comment).ok).toBe(true);

    const template = example("/gitignore/templates/{name}", "get", "200");
    const getTemplate = await load("gitignore_get_template");
    expect(validateArgs(getTemplate, { name: template.name }).ok).toBe(true);
    expect(validateOutput(getTemplate, template).ok).toBe(true);

    const conduct = example("/codes_of_conduct/{key}", "get", "200");
    const getConduct = await load("codes_of_conduct_get_conduct_code");
    expect(validateArgs(getConduct, { key: conduct.key }).ok).toBe(true);
    expect(validateOutput(getConduct, conduct).ok).toBe(true);
  });

  it("refuses the same requests and answers mutated, at the paths that changed", async () => {
    const comment = example("/gists/{gist_id}/comments", "post", "201");
    const createComment = await load("gists_create_comment");
    expect(refusedAt(validateArgs(createComment, { body: 42 }))).toEqual(["gist_id", "body"]);
    expect(
      refusedAt(validateArgs(createComment, { gist_id: "a6db", body: "b", labels: ["x"] })),
    ).toEqual(["labels"]);
    const user = { ...(comment.user as Node), login: 1 };
    expect(refusedAt(validateOutput(createComment, { ...comment, user }))).toEqual(["user.login"]);

    const template = example("/gitignore/templates/{name}", "get", "200");
    const getTemplate = await load("gitignore_get_template");
    expect(refusedAt(validateOutput(getTemplate, { ...template, source: null }))).toEqual([
      "source",
    ]);

    const conduct = example("/codes_of_conduct/{key}", "get", "200");
    const getConduct = await load("codes_of_conduct_get_conduct_code");
    expect(refusedAt(validateArgs(getConduct, { key: 5 }))).toEqual(["key"]);
    const { url: _url, ...withoutUrl } = conduct;
    expect(refusedAt(validateOutput(getConduct, { ...withoutUrl, key: "x" }))).toEqual(["url"]);
  });
});
