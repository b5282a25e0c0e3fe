import { describe, expect, it } from "vitest";
import { unexpectedAnswers } from "../../scripts/bench/http.ts";

const answers = (stats: Record<string, number>, errors = 0, timeouts = 0) => ({
  statusCodeStats: Object.fromEntries(
    Object.entries(stats).map(([status, count]) => [status, { count }]),
  ) as Record<`${number}`, { count?: number }>,
  errors,
  timeouts,
});

describe("a bench row's answers", () => {
  it("pass when every one has the expected status", () => {
    expect(unexpectedAnswers(answers({ 200: 1800 }), 200)).toBeNull();
    expect(unexpectedAnswers(answers({ 400: 900 }), 400)).toBeNull();
  });

  it("fail, named by status, when a brake refuses some of them", () => {
    expect(unexpectedAnswers(answers({ 429: 11, 200: 99 }), 200)).toBe(
      "expected every answer 200, got 99 × 200, 11 × 429",
    );
  });

  it("fail when a refusal row is answered 200, or a request got no answer", () => {
    expect(unexpectedAnswers(answers({ 200: 5 }), 400)).toBe(
      "expected every answer 400, got 5 × 200",
    );
    expect(unexpectedAnswers(answers({ 200: 5 }, 2, 1), 200)).toBe(
      "expected every answer 200, got 5 × 200, 2 errors, 1 timeouts",
    );
    expect(unexpectedAnswers(answers({}), 200)).toBe("expected every answer 200, got no answer");
  });
});
