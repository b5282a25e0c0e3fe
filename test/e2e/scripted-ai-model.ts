/**
 * A scripted model for the AI SDK, built on the SDK's own `MockLanguageModelV4` (`ai/test`):
 * each step reads the last tool results the SDK sent back and answers with tool calls or
 * with final text, as a real model's turn would.
 */
import type { LanguageModelV4GenerateResult, LanguageModelV4Prompt } from "@ai-sdk/provider";
import { MockLanguageModelV4 } from "ai/test";

/** One tool call the model proposes. */
export interface ProposedCall {
  /** Tool name. */
  tool: string;
  /** Arguments, sent as the model would: JSON text. */
  args: unknown;
}

/** A model's turn: tool calls, or final text. */
export type Turn = ProposedCall[] | string;

/** Decides the next turn from the tool results of the last one (empty on the first turn). */
export type Script = (lastResults: unknown[], turn: number) => Turn;

const USAGE = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

/** The tool results of the prompt's last tool message, as JSON values. */
function lastToolResults(prompt: LanguageModelV4Prompt): unknown[] {
  const last = prompt.at(-1);
  if (last?.role !== "tool") return [];
  return last.content.flatMap((part) =>
    part.type === "tool-result" && part.output.type === "json" ? [part.output.value] : [],
  );
}

function answer(turn: Turn, index: number): LanguageModelV4GenerateResult {
  if (typeof turn === "string") {
    return {
      content: [{ type: "text", text: turn }],
      finishReason: { unified: "stop", raw: "stop" },
      usage: USAGE,
      warnings: [],
    };
  }
  return {
    content: turn.map((call, i) => ({
      type: "tool-call" as const,
      toolCallId: `call-${index}-${i}`,
      toolName: call.tool,
      input: JSON.stringify(call.args),
    })),
    finishReason: { unified: "tool-calls", raw: "tool_calls" },
    usage: USAGE,
    warnings: [],
  };
}

/** A model that follows `script`, one turn per SDK step. */
export function scriptedModel(script: Script): MockLanguageModelV4 {
  let turn = 0;
  return new MockLanguageModelV4({
    doGenerate: async ({ prompt }) => {
      const index = turn++;
      return answer(script(lastToolResults(prompt), index), index);
    },
  });
}
