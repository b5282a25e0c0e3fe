/**
 * What the approval webhook posts: one JSON body per event (a new approval, an operator's
 * decision, an expiry) that is both the fence's own record of it and a Slack incoming-webhook
 * message as is: a one-line `text` and Block Kit `blocks`, the machine fields beside them
 * (Slack reads `text`, `blocks` and its own few keys, and ignores the rest). Arguments are the
 * approval's stored ones: each the contract marks sensitive is already its keyed digest.
 */

/** The events the webhook announces. */
export type NoticeType = "approval.requested" | "approval.decided" | "approval.expired";

/** An approval as a notification tells of it. */
export interface ApprovalNotice {
  /** Which event. */
  type: NoticeType;
  /** The run's tenant. */
  tenant: string;
  /** The run. */
  runId: string;
  /** The approval. */
  approvalId: string;
  /** The tool the call would run. */
  tool: string;
  /** The policy rule that asked. */
  rule: string;
  /** The arguments as the audit keeps them (sensitive ones redacted). */
  args: unknown;
  /** The call's idempotency key, or null. */
  idempotencyKey: string | null;
  /** When a call first asked (ISO 8601). */
  requestedAt: string;
  /** The deadline for a decision, or the grant's expiry once approved (ISO 8601). */
  expiresAt: string;
  /** `approved` or `denied` for a decision, `expired`, or `pending`. */
  status: string;
  /** Who decided, or null. */
  decidedBy: string | null;
  /** The operator's note, or null. */
  note: string | null;
  /** The fence's public origin (`https://fence.example.com`): links are absolute. */
  origin: string;
}

/** Slack's caps on a message (Block Kit reference): the text, a section's text, a button. */
const SLACK_LIMITS = {
  /** Characters of the top-level `text`. */
  text: 40_000,
  /** Blocks in one message. */
  blocks: 50,
  /** Characters of a section block's text. */
  sectionText: 3_000,
  /** Characters of a button's URL. */
  buttonUrl: 3_000,
  /** Characters of a button's label. */
  buttonText: 75,
} as const;

/** A Block Kit text object: Slack formats `mrkdwn` and shows `plain_text` as is. */
interface TextObject<Kind extends "mrkdwn" | "plain_text"> {
  /** Which kind. */
  type: Kind;
  /** The text. */
  text: string;
}

/** A Block Kit link button. */
interface LinkButton {
  /** Always `button`. */
  type: "button";
  /** Its label. */
  text: TextObject<"plain_text">;
  /** The absolute URL it opens. */
  url: string;
  /** Names the button in Slack's interaction payloads. */
  action_id: string;
}

/** The Block Kit blocks a notice uses: sections of text, and a row of link buttons. */
type NoticeBlock =
  | { type: "section"; text: TextObject<"mrkdwn"> }
  | { type: "actions"; elements: LinkButton[] };

/** The message a notice posts: Slack's `text` and `blocks`, the fence's fields beside them. */
export interface NoticeMessage {
  /** The one-line notification, the fallback where blocks are not shown. */
  text: string;
  /** The Block Kit blocks. */
  blocks: NoticeBlock[];
  /** The fence's machine fields (`type`, `run_id`, `approval_id`, ...), which Slack ignores. */
  [field: string]: unknown;
}

/** The console page of the call's run, at the approval's card. */
function approvalLink(n: Pick<ApprovalNotice, "origin" | "runId" | "approvalId">): string {
  return `${n.origin}/console/runs/${encodeURIComponent(n.runId)}#approval-${n.approvalId}`;
}

/** Slack's mrkdwn escapes `&`, `<` and `>`: nothing the agent or an operator wrote is markup. */
function mrkdwn(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

/** `text` cut to at most `max` characters, marked with an ellipsis when cut. */
function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** `2026-12-03 08:20 UTC`: minutes are what a person acts on. */
function minuteUtc(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/** The one-line summary: what happened, to which call, and by when or by whom. */
function summary(n: ApprovalNotice): string {
  const call = `${n.tool} in run ${n.runId} (rule ${n.rule})`;
  if (n.type === "approval.requested") {
    return `Approval needed: ${call} — decide by ${minuteUtc(n.expiresAt)}`;
  }
  if (n.type === "approval.expired") {
    return `Approval expired: ${call} — nobody decided by ${minuteUtc(n.expiresAt)}; the call is denied`;
  }
  const verb = n.status === "approved" ? "Approved" : "Denied";
  const note = n.note === null || n.note === "" ? "" : `: ${n.note}`;
  return `${verb} by ${n.decidedBy ?? "an operator"}: ${call}${note}`;
}

/** The Block Kit blocks: the summary, the arguments, a button to the call in the console. */
function blocks(n: ApprovalNotice, line: string, link: string): NoticeBlock[] {
  const args = JSON.stringify(n.args, null, 1);
  const fence = "```";
  const room = SLACK_LIMITS.sectionText - 2 * fence.length - 2;
  const shown: NoticeBlock[] = [
    {
      type: "section",
      text: { type: "mrkdwn", text: cut(mrkdwn(line), SLACK_LIMITS.sectionText) },
    },
    {
      type: "section",
      text: { type: "mrkdwn", text: `${fence}\n${cut(mrkdwn(args), room)}\n${fence}` },
    },
  ];
  // Slack refuses a button whose URL is not absolute: with no origin known, no button.
  if (!link.startsWith("http")) return shown;
  return [
    ...shown,
    {
      type: "actions",
      elements: [
        {
          type: "button",
          text: { type: "plain_text", text: "Open in console" },
          url: link,
          action_id: "open_approval",
        },
      ],
    },
  ];
}

/** The message posted for `n`: Slack's `text` and `blocks`, and the fence's machine fields. */
export function noticeMessage(n: ApprovalNotice): NoticeMessage {
  const link = approvalLink(n);
  const line = summary(n);
  const decide = `/v1/runs/${encodeURIComponent(n.runId)}/approvals/${n.approvalId}`;
  const open = link.startsWith("http") ? ` <${link}|Open>` : "";
  return {
    text: `${cut(mrkdwn(line), SLACK_LIMITS.text - open.length)}${open}`,
    blocks: blocks(n, line, link),
    type: n.type,
    tenant: n.tenant,
    run_id: n.runId,
    approval_id: n.approvalId,
    tool: n.tool,
    rule: n.rule,
    status: n.status,
    args: n.args,
    idempotency_key: n.idempotencyKey,
    requested_at: n.requestedAt,
    expires_at: n.expiresAt,
    decided_by: n.decidedBy,
    note: n.note,
    decide,
    url: link,
  };
}

/** The body posted for `n`: its message as JSON. */
export function noticeBody(n: ApprovalNotice): string {
  return JSON.stringify(noticeMessage(n));
}

/** The origin links use: `PUBLIC_URL`'s when set, else the one the approval was asked at. */
export function linkOrigin(publicUrl: string | undefined, asked: string | null): string {
  if (publicUrl !== undefined && publicUrl !== "") return new URL(publicUrl).origin;
  return asked ?? "";
}
