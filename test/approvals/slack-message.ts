/**
 * A Slack incoming-webhook message, as Slack's Block Kit reference and `@slack/types`
 * (`KnownBlock`, `SectionBlock`, `ActionsBlock`, `Button`, `MrkdwnElement`, `PlainTextElement`)
 * define it, with Slack's published limits: `text` at most 40,000 characters, at most 50
 * blocks, a section's text at most 3,000, a button's label at most 75 and its URL at most 3,000,
 * an `action_id` at most 255. Only the block kinds the fence sends are accepted; keys Slack
 * does not read may stand beside `text` and `blocks`.
 */
import type { KnownBlock } from "@slack/types";
import * as v from "valibot";

/** A message as Slack's own types (`@slack/types`) define one: a text and known blocks. */
export interface SlackTypedMessage {
  /** The notification text. */
  text: string;
  /** Blocks of the kinds Slack knows. */
  blocks: KnownBlock[];
}

/**
 * `message`, checked at compile time against Slack's published types: a body with a block,
 * element or field Slack does not define fails `tsc --noEmit`.
 */
export function slackTyped(message: SlackTypedMessage): SlackTypedMessage {
  return message;
}

const Mrkdwn = v.strictObject({
  type: v.literal("mrkdwn"),
  text: v.pipe(v.string(), v.minLength(1), v.maxLength(3_000)),
  verbatim: v.optional(v.boolean()),
});

const PlainText = v.strictObject({
  type: v.literal("plain_text"),
  text: v.pipe(v.string(), v.minLength(1), v.maxLength(75)),
  emoji: v.optional(v.boolean()),
});

const Button = v.strictObject({
  type: v.literal("button"),
  text: PlainText,
  url: v.optional(v.pipe(v.string(), v.url(), v.maxLength(3_000), v.regex(/^https?:\/\//))),
  action_id: v.optional(v.pipe(v.string(), v.maxLength(255))),
  value: v.optional(v.pipe(v.string(), v.maxLength(2_000))),
  style: v.optional(v.picklist(["primary", "danger"])),
});

const Section = v.strictObject({
  type: v.literal("section"),
  text: v.union([Mrkdwn, v.strictObject({ ...PlainText.entries, text: Mrkdwn.entries.text })]),
  block_id: v.optional(v.pipe(v.string(), v.maxLength(255))),
  accessory: v.optional(Button),
});

const Actions = v.strictObject({
  type: v.literal("actions"),
  elements: v.pipe(v.array(Button), v.minLength(1), v.maxLength(25)),
  block_id: v.optional(v.pipe(v.string(), v.maxLength(255))),
});

/** The message: a notification `text` (the fallback where blocks are not shown) and blocks. */
export const SlackMessageSchema = v.looseObject({
  text: v.pipe(v.string(), v.minLength(1), v.maxLength(40_000)),
  blocks: v.pipe(v.array(v.union([Section, Actions])), v.minLength(1), v.maxLength(50)),
});

/** A Slack link in mrkdwn, `<url|label>`: its URL. */
export function linkOf(text: string): string | null {
  return /<(https?:\/\/[^|>]+)\|[^>]*>/.exec(text)?.[1] ?? null;
}
