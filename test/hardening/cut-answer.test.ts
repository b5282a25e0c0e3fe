import { describe, expect, it } from "vitest";
import { json, newRun } from "../helpers.ts";
import { getFrom, proposeTo, type Script, UpstreamDouble } from "../upstream-double.ts";

const charge = {
  tool: "charge_card",
  args: { account: "acct-7", amount_cents: 1200 },
  idempotency_key: "k-cut-answer-01",
};

const PART = '{"charge_id":"ch_';

/**
 * The status line, the headers and `part` of the body; then the connection drops, or, with
 * `hang`, nothing more ever comes.
 */
function cutAfter(status: number, part: string, hang = false): Script {
  return () => {
    let sent = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (!sent) {
          sent = true;
          controller.enqueue(new TextEncoder().encode(part));
          return;
        }
        if (hang) return new Promise<void>(() => undefined);
        controller.error(new TypeError("Network connection lost."));
      },
    });
    const headers = { "Content-Type": "application/json" };
    return Promise.resolve(new Response(body, { status, headers }));
  };
}

interface Problem {
  decision: string;
  reason: string;
  detail: string;
}

describe("an upstream answer cut after its status", () => {
  it("settles a mutation whose 200 was cut as upstream_outcome_unknown, and the retry replays it", async () => {
    const double = new UpstreamDouble(cutAfter(200, PART));
    const run = newRun("cut");
    const first = await proposeTo(double, run, charge);
    expect(first.status).toBe(502);
    const problem = await json<Problem>(first);
    expect(problem).toMatchObject({ decision: "escalate", reason: "upstream_outcome_unknown" });
    expect(problem.detail).toContain("HTTP 200");
    const retry = await proposeTo(double, run, charge);
    expect(retry.status).toBe(502);
    expect(retry.headers.get("Idempotent-Replayed")).toBe("true");
    expect(double.received).toHaveLength(1);
    // Listed for a person, with the part of the answer that came.
    const listed = await json<{
      escalations: { reason: string; upstream: { status: number; excerpt: string } }[];
    }>(await getFrom(`/v1/runs/${run}/escalations`));
    expect(listed.escalations.map((e) => e.reason)).toEqual(["upstream_outcome_unknown"]);
    expect(listed.escalations[0]?.upstream).toMatchObject({ status: 200, excerpt: PART });
  });

  it("settles a mutation whose 200 body did not arrive within its timeout the same way", async () => {
    const double = new UpstreamDouble(cutAfter(200, PART, true));
    const problem = await json<Problem>(await proposeTo(double, newRun("cut-slow"), charge));
    expect(problem).toMatchObject({ decision: "escalate", reason: "upstream_outcome_unknown" });
  });

  it("lets a read whose 200 was cut be retried", async () => {
    const double = new UpstreamDouble(cutAfter(200, '{"rows":'));
    const res = await proposeTo(double, newRun("cut-read"), { tool: "slow_report", args: {} });
    expect(res.status).toBe(502);
    expect(await json<Problem>(res)).toMatchObject({
      decision: "retry",
      reason: "upstream_unavailable",
    });
  });

  it("classifies a cut answer of another status by that status", async () => {
    const failing = new UpstreamDouble(cutAfter(503, '{"error":'));
    const failed = await json<Problem>(await proposeTo(failing, newRun("cut-503"), charge));
    expect(failed).toMatchObject({ decision: "retry", reason: "upstream_unavailable" });
    const refusing = new UpstreamDouble(cutAfter(409, '{"error":'));
    const refused = await json<Problem>(await proposeTo(refusing, newRun("cut-409"), charge));
    expect(refused).toMatchObject({ decision: "escalate", reason: "upstream_rejected" });
  });
});
