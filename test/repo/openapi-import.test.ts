import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import * as v from "valibot";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { catalogue } from "../../src/core/catalogue.ts";
import type { ToolContract } from "../../src/core/contract.ts";

// Public descriptions nobody here wrote (test/fixtures/openapi/SOURCE.md).
const ROOT = resolve(import.meta.dirname, "../..");
const FIXTURES = join(ROOT, "test/fixtures/openapi");
// Inside the project, so generated files resolve valibot; ignored by git.
const dir = mkdtempSync(join(ROOT, "test/repo/.imported-"));

async function importSpec(file: string, ...flags: string[]) {
  return promisify(execFile)(
    process.execPath,
    ["scripts/contracts.ts", "import", "--openapi", join(FIXTURES, file), "--out", dir, ...flags],
    { cwd: ROOT },
  ).then(
    (r) => ({ code: 0, ...r }),
    (e: { code: number; stdout: string; stderr: string }) => e,
  );
}

async function load(name: string): Promise<ToolContract> {
  const mod = (await import(pathToFileURL(join(dir, `${name}.ts`)).href)) as Record<
    string,
    unknown
  >;
  return Object.values(mod)[0] as ToolContract;
}

function issuePaths(schema: ToolContract["input"], value: unknown): string[] {
  const r = v.safeParse(schema, value);
  return r.success ? [] : r.issues.map((i) => v.getDotPath(i) ?? "");
}

/** Import a description written by the test, into its own folder of `dir`. */
async function importDescription(name: string, description: unknown) {
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(description));
  const out = join(dir, name);
  const res = await promisify(execFile)(
    process.execPath,
    ["scripts/contracts.ts", "import", "--openapi", file, "--out", out],
    { cwd: ROOT },
  ).catch((e: { stdout: string; stderr: string }) => e);
  return { out, res };
}

let petstore: Awaited<ReturnType<typeof importSpec>>;
beforeAll(async () => {
  petstore = await importSpec("petstore.json", "--server", "https://petstore.example/v2");
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("contracts import --openapi", () => {
  it("imports the fence's modules relative to the folder written to", () => {
    const text = readFileSync(join(dir, "get_pet_by_id.ts"), "utf8");
    const expected = relative(dir, join(ROOT, "src/core/contract.ts")).split("\\").join("/");
    expect(expected).not.toBe("../src/core/contract.ts");
    expect(text).toContain(`import type { ToolContract } from ${JSON.stringify(expected)};`);
  });

  it("writes one contract per operation it can enforce, named from operationId", () => {
    expect(readdirSync(dir).sort()).toEqual([
      "find_pets_by_status.ts",
      "find_pets_by_tags.ts",
      "get_inventory.ts",
      "get_order_by_id.ts",
      "get_pet_by_id.ts",
      "get_user_by_name.ts",
      "login_user.ts",
      "place_order.ts",
    ]);
    // The others are reported with their reasons, and the import says it refused some.
    expect(petstore.code).toBe(1);
    expect(petstore.stderr).toContain(
      "delete_pet.parameters.api_key: a header parameter cannot be sent by the fence",
    );
    expect(petstore.stderr).toContain("upload_file.requestBody: no application/json body");
  });

  it("writes contracts the fence publishes in every catalogue dialect", async () => {
    const names = readdirSync(dir).map((f) => f.replace(/\.ts$/, ""));
    const tools = await Promise.all(names.map(load));
    for (const format of ["json", "openai", "anthropic"] as const) {
      expect(JSON.stringify(catalogue(tools, format))).toContain('"get_pet_by_id"');
    }
  });

  it("reads GET as read, the rest as mutate, with the upstream from the server", async () => {
    const get = await load("get_pet_by_id");
    expect(get.effect).toBe("read");
    expect(get.upstream).toEqual({
      kind: "http",
      method: "GET",
      url: "https://petstore.example/v2/pet/{petId}",
      auth: { header: "api_key", secret: "API_KEY" },
    });
    const place = await load("place_order");
    expect(place.effect).toBe("mutate");
    expect(place.upstream).toMatchObject({ method: "POST" });
  });

  it("checks arguments with the parameters' and body's schemas", async () => {
    const get = await load("get_pet_by_id");
    expect(issuePaths(get.input, { petId: 10 })).toEqual([]);
    expect(issuePaths(get.input, { petId: "10" })).toEqual(["petId"]);
    expect(issuePaths(get.input, { petId: 2 ** 63 })).toEqual(["petId"]);
    expect(issuePaths(get.input, { petId: 1, extra: 1 })).toEqual(["extra"]);
    const place = await load("place_order");
    expect(issuePaths(place.input, { id: 1, quantity: 2, status: "placed" })).toEqual([]);
    expect(issuePaths(place.input, { id: 1, status: "lost" })).toEqual(["status"]);
  });

  it("refuses an operation reaching a cycle and a name outside the pattern", async () => {
    const circular = await importSpec("circular.json", "--server", "https://c.example");
    expect(circular.stderr).toContain("cycle at");
    expect(circular.code).toBe(1);
    const expanded = await importSpec("petstore-expanded.json", "--server", "https://p.example");
    expect(expanded.stderr).toContain(`refused "find pet by id"`);
  });

  it("imports an allOf of object schemas as the one object it composes", async () => {
    const out = join(dir, "expanded");
    const flags = ["--server", "https://p.example", "--out", out];
    const expanded = await importSpec("petstore-expanded.json", ...flags);
    expect(expanded.stdout).toContain("find_pets.ts");
    const href = pathToFileURL(join(out, "find_pets.ts")).href;
    const findPets = Object.values((await import(href)) as Record<string, ToolContract>)[0];
    if (findPets === undefined) throw new Error("find_pets was not written");
    // Pet: allOf [NewPet { name, tag? }, { id }].
    expect(
      issuePaths(findPets.output, [
        { name: "Rex", id: 1 },
        { name: "Tom", id: 2, tag: "cat" },
      ]),
    ).toEqual([]);
    expect(issuePaths(findPets.output, [{ name: "Rex" }])).toEqual(["0.id"]);
    expect(issuePaths(findPets.output, [{ id: 1, name: "Rex", owner: "me" }])).toEqual(["0.owner"]);
  });

  it("imports a oneOf of types no value has both of, and refuses any other oneOf", async () => {
    const one = (oneOf: unknown[]) => ({
      type: "object",
      required: ["v"],
      properties: { v: { oneOf } },
    });
    const op = (operationId: string, schema: unknown) => ({
      operationId,
      responses: { "200": { description: "ok", content: { "application/json": { schema } } } },
    });
    const description = {
      openapi: "3.1.0",
      info: { title: "oneOf", version: "1" },
      servers: [{ url: "https://one.example" }],
      paths: {
        "/a": { get: op("textOrCount", one([{ type: "string" }, { type: "integer" }])) },
        "/b": { get: op("countOrNumber", one([{ type: "integer" }, { type: "number" }])) },
        "/c": { get: op("eitherObject", one([{ type: "object" }, { type: "object" }])) },
      },
    };
    const { out, res } = await importDescription("one-of", description);
    expect(readdirSync(out)).toEqual(["text_or_count.ts"]);
    expect(res.stderr).toContain('count_or_number.output.v: "oneOf" cannot be enforced exactly');
    expect(res.stderr).toContain('either_object.output.v: "oneOf" cannot be enforced exactly');
    const href = pathToFileURL(join(out, "text_or_count.ts")).href;
    const tool = Object.values((await import(href)) as Record<string, ToolContract>)[0];
    if (tool === undefined) throw new Error("text_or_count was not written");
    expect(issuePaths(tool.output, { v: "a" })).toEqual([]);
    expect(issuePaths(tool.output, { v: 2 })).toEqual([]);
    expect(issuePaths(tool.output, { v: true })).toEqual(["v"]);
  });

  it("composes a nullable allOf of objects (3.0), and refuses one that is not of plain objects", async () => {
    const op = (operationId: string, schema: unknown) => ({
      operationId,
      responses: { "200": { description: "ok", content: { "application/json": { schema } } } },
    });
    const named = { type: "object", required: ["name"], properties: { name: { type: "string" } } };
    const description = {
      openapi: "3.0.3",
      info: { title: "allOf", version: "1" },
      servers: [{ url: "https://all.example" }],
      paths: {
        "/a": { get: op("maybeNamed", { nullable: true, allOf: [named] }) },
        "/b": {
          get: op("openNamed", { allOf: [named, { type: "object", additionalProperties: true }] }),
        },
      },
    };
    const { out, res } = await importDescription("all-of", description);
    expect(readdirSync(out)).toEqual(["maybe_named.ts"]);
    expect(res.stderr).toContain('open_named.output: "allOf" is enforced only on an object schema');
    const href = pathToFileURL(join(out, "maybe_named.ts")).href;
    const tool = Object.values((await import(href)) as Record<string, ToolContract>)[0];
    if (tool === undefined) throw new Error("maybe_named was not written");
    expect(issuePaths(tool.output, null)).toEqual([]);
    expect(issuePaths(tool.output, { name: "a" })).toEqual([]);
    expect(issuePaths(tool.output, {})).toEqual(["name"]);
  });

  it("refuses a description that is not OpenAPI 3.0 or 3.1 only by its version", async () => {
    const webhooks = await importSpec("webhooks-3.1.json");
    expect(webhooks.code).toBe(0);
    expect(webhooks.stdout).toContain("0 written, 0 refused");
  });
});
