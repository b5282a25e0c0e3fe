import { describe, expect, it } from "vitest";
import readme from "../../README.md?raw";
import aiSdk from "../e2e/ai-sdk.test.ts?raw";
import client from "../e2e/client.test.ts?raw";
import agents from "../e2e/openai-agents.test.ts?raw";

/** The lines between `// README: <name>` and `// README: end` in a test, dedented. */
function marked(source: string, name: string): string {
  const match = source.match(new RegExp(`// README: ${name}\\n([\\s\\S]*?)\\n\\s*// README: end`));
  const lines = (match?.[1] ?? "").split("\n");
  const indent = Math.min(...lines.filter((l) => l.trim()).map((l) => l.search(/\S/)));
  return lines.map((l) => l.slice(indent)).join("\n");
}

/** The README's `ts` code blocks of the "Using it from your agent" section, imports removed. */
function snippets(): string[] {
  const section = readme.split("## Using it from your agent")[1]?.split("\n## ")[0] ?? "";
  return [...section.matchAll(/```ts\n([\s\S]*?)\n```/g)].map((m) =>
    (m[1] ?? "")
      .split("\n")
      .filter((l) => !l.startsWith("import "))
      .join("\n"),
  );
}

describe("the README's agent snippets", () => {
  it("are copies of the code the e2e tests run", () => {
    expect(snippets()).toEqual([
      marked(client, "client"),
      marked(aiSdk, "ai-sdk"),
      marked(agents, "openai-agents"),
    ]);
    expect(snippets().every((s) => s.includes("await"))).toBe(true);
  });
});
