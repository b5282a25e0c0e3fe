/**
 * Telling the deployment's webhook of an approval (a new one, a decision, an expiry): a signed
 * JSON body (core/approval-notice.ts, core/webhook-signature.ts), posted once the act is
 * committed and answered, retried a bounded number of times with doubling delays when the
 * receiver fails or cannot be reached.
 */
import { type ApprovalNotice, linkOrigin, noticeBody } from "../../core/approval-notice.ts";
import { SIGNATURE_HEADER, signature } from "../../core/webhook-signature.ts";
import type { ApprovalView } from "./approval-types.ts";

/** Deliveries tried at most, the first included. */
export const WEBHOOK_ATTEMPTS = 4;

/** Delay before the second attempt; each later one doubles it (250, 500, 1000 ms). */
const WEBHOOK_BASE_DELAY_MS = 250;

/** One attempt's time limit. */
const ATTEMPT_TIMEOUT_MS = 5_000;

/** Where and how a delivery goes. */
export interface WebhookTarget {
  /** The receiver's URL. */
  url: string;
  /** The HMAC secret. */
  secret: string;
}

/** The deployment's webhook, or null when none is configured (no URL, or no secret to sign). */
function webhookOf(env: Env): WebhookTarget | null {
  const url = env.APPROVAL_WEBHOOK_URL;
  const secret = env.APPROVAL_WEBHOOK_SECRET;
  if (url === undefined || url === "" || secret === undefined || secret === "") return null;
  return { url, secret };
}

/** Post `notice` to the deployment's webhook, if one is configured. */
export async function notify(env: Env, notice: ApprovalNotice): Promise<void> {
  const target = webhookOf(env);
  if (target !== null) await deliver(target, noticeBody(notice));
}

/** What a notice tells of an approval. */
export type NoticedApproval = Pick<
  ApprovalView,
  | "run_id"
  | "approval_id"
  | "tool"
  | "rule"
  | "args"
  | "idempotency_key"
  | "requested_at"
  | "expires_at"
  | "status"
  | "decided_by"
  | "note"
>;

/**
 * The notice of `type` for approval `a` of `tenant`'s run, its link at `PUBLIC_URL` or else at
 * `askedAt`, the origin the call came to.
 */
export function noticeOf(
  env: Env,
  type: ApprovalNotice["type"],
  tenant: string,
  a: NoticedApproval,
  askedAt: string | null,
): ApprovalNotice {
  return {
    type,
    tenant,
    runId: a.run_id,
    approvalId: a.approval_id,
    tool: a.tool,
    rule: a.rule,
    args: JSON.parse(a.args) as unknown,
    idempotencyKey: a.idempotency_key,
    requestedAt: a.requested_at,
    expiresAt: a.expires_at,
    status: a.status,
    decidedBy: a.decided_by,
    note: a.note,
    origin: linkOrigin(env.PUBLIC_URL, askedAt),
  };
}

/**
 * POST `body` until the receiver answers 2xx or the attempts run out; a 4xx other than 408 and
 * 429 means the receiver refuses this body, so it is not retried. Returns the attempts made.
 */
async function deliver(target: WebhookTarget, body: string): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    const status = await attemptOnce(target, body);
    const final = status !== null && status < 500 && status !== 408 && status !== 429;
    if ((status !== null && status >= 200 && status < 300) || final) return attempt;
    if (attempt >= WEBHOOK_ATTEMPTS) {
      console.error("approval webhook gave up", { url: target.url, attempts: attempt, status });
      return attempt;
    }
    await new Promise((r) => setTimeout(r, WEBHOOK_BASE_DELAY_MS * 2 ** (attempt - 1)));
  }
}

async function attemptOnce(target: WebhookTarget, body: string): Promise<number | null> {
  // Signed per attempt, so each carries a fresh timestamp a receiver's tolerance accepts.
  const header = await signature(target.secret, body, Math.floor(Date.now() / 1000));
  try {
    const res = await fetch(target.url, {
      method: "POST",
      headers: { "Content-Type": "application/json", [SIGNATURE_HEADER]: header },
      body,
      signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
    });
    await res.body?.cancel();
    return res.status;
  } catch {
    return null;
  }
}
