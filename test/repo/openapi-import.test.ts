import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
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
    expect(expanded.stderr).toContain(`find_pets.output[]: "allOf" cannot be enforced exactly`);
  });

  it("refuses a description that is not OpenAPI 3.0 or 3.1 only by its version", async () => {
    const webhooks = await importSpec("webhooks-3.1.json");
    expect(webhooks.code).toBe(0);
    expect(webhooks.stdout).toContain("0 written, 0 refused");
  });
});
