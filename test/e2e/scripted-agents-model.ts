/**
 * A scripted model for `@openai/agents`: an implementation of the SDK's own `Model`
 * interface whose turns are decided by a script from the tool outputs the SDK sent back.
 * The runner, the tool execution and the approval machinery are the SDK's, unchanged.
 */
import { type AgentInputItem, type Model, type ModelResponse, Usage } from "@openai/agents";

/** One tool call the model proposes. */
export interface ProposedCall {
  /** Tool name. */
  tool: string;
  /** Arguments, sent as the model would: JSON text. */
  args: unknown;
}

/** A model's turn: tool calls, or final text. */
export type Turn = ProposedCall[] | string;

/** Decides the next turn from the tool outputs of the last one (empty on the first turn). */
export type Script = (lastResults: unknown[], turn: number) => Turn;

/** A tool output as the SDK hands it back: text (JSON here) or a text part. */
function parseOutput(output: unknown): unknown {
  if (typeof output === "string") return JSON.parse(output);
  if (typeof output === "object" && output !== null && "text" in output) {
    return JSON.parse(String(output.text));
  }
  return output;
}

/** The outputs of the trailing function-call results of the conversation. */
function lastResults(input: string | AgentInputItem[]): unknown[] {
  if (typeof input === "string") return [];
  const results: unknown[] = [];
  for (let i = input.length - 1; i >= 0; i--) {
    const item = input[i];
    if (item?.type !== "function_call_result") break;
    results.unshift(parseOutput(item.output));
  }
  return results;
}

function respond(turn: Turn, index: number): ModelResponse {
  const usage = new Usage();
  if (typeof turn === "string") {
    const content = [{ type: "output_text" as const, text: turn }];
    return {
      usage,
      output: [{ type: "message", role: "assistant", status: "completed", content }],
    };
  }
  return {
    usage,
    output: turn.map((call, i) => ({
      type: "function_call" as const,
      callId: `call-${index}-${i}`,
      name: call.tool,
      arguments: JSON.stringify(call.args),
      status: "completed" as const,
    })),
  };
}

/** A model that follows `script`, one turn per model call of the runner. */
export function scriptedAgentsModel(script: Script): Model {
  let turn = 0;
  return {
    async getResponse(request) {
      const index = turn++;
      return respond(script(lastResults(request.input), index), index);
    },
    getStreamedResponse() {
      throw new Error("the scripted model answers non-streamed runs only");
    },
  };
}
