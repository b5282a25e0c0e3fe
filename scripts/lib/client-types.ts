/**
 * The declaration `npm run contracts -- types` writes: the tools of a contracts folder as plain
 * TypeScript types, added to `toolfence/client`'s `Tools` interface by module augmentation, so
 * a consumer project types `run.call(name, args)` and its result with nothing of the fence's
 * sources or valibot installed.
 *
 * The types are compiled from each contract's JSON Schema as the catalogue publishes it
 * (`GET /v1/tools`, `typeMode` input for the arguments and output for the result), the same
 * form the fence's tool listing and OpenAPI document are generated from; a declaration that
 * imported the contracts would need the fence's sources and valibot in the consumer's project.
 */
import type { JsonSchema } from "@valibot/to-json-schema";
import { compile } from "json-schema-to-typescript";
import { catalogue } from "../../src/core/catalogue.ts";
import type { ToolContract } from "../../src/core/contract.ts";

/** One tool as the catalogue lists it, with the schemas the declaration is compiled from. */
interface ListedTool {
  name: string;
  description: string;
  input_schema: JsonSchema;
  output_schema: JsonSchema;
}

/** `create_ticket` → `CreateTicket`: the prefix of a tool's type names. */
function typeName(tool: string): string {
  return tool
    .split(/[^A-Za-z0-9]+/)
    .filter((part) => part !== "")
    .map((part) => part[0]?.toUpperCase() + part.slice(1))
    .join("");
}

/** The name of the root interface the declaration adds to `Tools`. */
const ROOT = "ContractTools";

/**
 * One tool's schema with its `$defs` hoisted to the combined root under `prefix`, and every
 * local `$ref` rewritten to match: each tool's references stay its own (JSON Schema 2020-12
 * §8.2.4), and one compilation names every shared type once.
 */
function hoisted(schema: JsonSchema, prefix: string, defs: Record<string, unknown>): JsonSchema {
  const {
    $schema: _dialect,
    $defs,
    ...rest
  } = schema as JsonSchema & {
    $defs?: Record<string, JsonSchema>;
  };
  const rewrite = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(rewrite);
    if (typeof node !== "object" || node === null) return node;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      out[key] =
        key === "$ref" && typeof value === "string" && value.startsWith("#/$defs/")
          ? `#/$defs/${prefix}${value.slice("#/$defs/".length)}`
          : rewrite(value);
    }
    // A 2020-12 tuple (`prefixItems`, then `items` for the rest) in the compiler's draft-4
    // spelling (`items` as a list, then `additionalItems`); without a rest it has exactly its
    // items, as valibot infers a tuple whose extra items the gate strips.
    if ("prefixItems" in out) {
      const { prefixItems, items, ...others } = out;
      return { ...others, items: prefixItems, additionalItems: items ?? false };
    }
    return out;
  };
  for (const [name, def] of Object.entries($defs ?? {})) defs[`${prefix}${name}`] = rewrite(def);
  return rewrite(rest) as JsonSchema;
}

/** The combined schema: one property per tool, each with its input and output. */
function combined(tools: readonly ListedTool[]): JsonSchema {
  const defs: Record<string, unknown> = {};
  const properties: Record<string, unknown> = {};
  for (const tool of tools) {
    const name = typeName(tool.name);
    const input = hoisted(tool.input_schema, `${name}Input`, defs);
    const output = hoisted(tool.output_schema, `${name}Output`, defs);
    properties[tool.name] = {
      description: tool.description,
      type: "object",
      properties: {
        input: { ...input, title: `${name}Input` },
        output: { ...output, title: `${name}Output` },
      },
      required: ["input", "output"],
      additionalProperties: false,
    };
  }
  return {
    title: ROOT,
    description: "The tools of the contracts folder, by name.",
    type: "object",
    properties,
    required: tools.map((t) => t.name),
    additionalProperties: false,
    ...(Object.keys(defs).length === 0 ? {} : { $defs: defs }),
  } as JsonSchema;
}

/**
 * The declaration for `contracts`, read from `source` (a folder, named in the banner). Each
 * tool's arguments and result are exported as `<Tool>Input` and `<Tool>Output` too.
 */
export async function clientTypes(
  contracts: readonly ToolContract[],
  source: string,
): Promise<string> {
  const { tools } = catalogue(contracts, "json") as { tools: ListedTool[] };
  // The compiler's types are draft 4's; the keywords it reads are spelled the same in 2020-12.
  const schema = combined(tools) as Parameters<typeof compile>[0];
  const declarations = await compile(schema, ROOT, {
    bannerComment: "",
    // An object the contract leaves open still takes only the keys it names, as the gate reads.
    additionalProperties: false,
    strictIndexSignatures: true,
    unknownAny: true,
    // A bounded array stays an array, as valibot infers it, not a union of tuples.
    maxItems: -1,
    // `$ref`s are only the local ones hoisted above: nothing is read from disk or network.
    $refOptions: { resolve: { file: false, http: false } },
  });
  return `/**
 * The tools of ${JSON.stringify(source).replaceAll("*/", "*\\/")} for \`toolfence/client\`, written by
 * \`npm run contracts -- types\` from the contracts' JSON Schema: do not edit, generate again.
 * Keep this file in the project's compilation (a \`.d.ts\` its tsconfig includes).
 */

${declarations.trim()}

declare module "toolfence/client" {
  interface Tools extends ${ROOT} {}
}
`;
}
