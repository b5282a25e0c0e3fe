/**
 * Every tool an MCP server lists, following `nextCursor` pages: shared by the worker's drift
 * check and `npm run contracts` (import, drift), which connect differently but list alike.
 */
import type { Client, Tool } from "@modelcontextprotocol/client";

/** All tools `client` (connected) lists, in order. */
export async function allTools(client: Client): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor });
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return tools;
}
