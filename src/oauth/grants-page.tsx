/**
 * The console's grants page, `/console/grants`: the tenant's connector grants (who consented,
 * which client, which tools and limits, their runs), each of which an operator may tighten or
 * revoke. Revoking deletes the grant and its tokens in the library's store, so a token of it
 * is refused at its next request; tightening changes the limits new runs of the grant open
 * with and tightens its current run at once.
 */
import type { Hono } from "hono";
import type { ConsoleContext, ConsoleEnv, Operator } from "../console/context.ts";
import { html, Notice, Page } from "../console/layout.tsx";
import type { RunLimits } from "../core/limits.ts";
import type { Fence } from "../core/policy.ts";
import { principalName } from "../core/principal.ts";
import { isLocalDevelopment } from "../http/local-dev.ts";
import { ledgerOf } from "../ledger/address.ts";
import {
  type GrantRecord,
  listRecords,
  overrideOf,
  readRecord,
  recordKey,
  runIdOf,
  writeRecord,
} from "./grant.ts";
import { limitsOfForm } from "./grant-limits.ts";

const GRANT_ID = /^[0-9a-f]{24}$/;

function GrantRow(props: { record: GrantRecord }) {
  const { record } = props;
  const { limits } = record;
  const run = runIdOf(record.grant, record.run);
  const action = `/console/grants/${record.grant}`;
  return (
    <section class="panel" id={`grant-${record.grant}`}>
      <h2>{record.client_name}</h2>
      <p class="muted">
        consented by{" "}
        <code>{record.principal ? principalName(record.principal) : record.subject}</code> · client{" "}
        <code>{record.client_id}</code> · current run <a href={`/console/runs/${run}`}>{run}</a>
      </p>
      <p>
        Tools:{" "}
        {limits.allowed_tools.map((t) => (
          <code>{t} </code>
        ))}{" "}
        · at most {limits.max_mutations} mutations and {limits.max_paid_calls} paid calls per run ·
        each run {Math.floor(limits.deadline_ms / 1000)} s
      </p>
      <form method="post" action={`${action}/tighten`}>
        {limits.allowed_tools.map((t) => (
          <label>
            <input type="checkbox" name="tools" value={t} checked /> <code>{t}</code>
          </label>
        ))}
        <input type="number" name="max_mutations" min={0} value={String(limits.max_mutations)} />
        <input type="number" name="max_paid_calls" min={0} value={String(limits.max_paid_calls)} />
        <input
          type="number"
          name="deadline_seconds"
          min={1}
          value={String(Math.floor(limits.deadline_ms / 1000))}
        />
        <button type="submit">Tighten</button>
      </form>
      <form method="post" action={`${action}/revoke`}>
        <button type="submit" class="danger">
          Revoke
        </button>
      </form>
    </section>
  );
}

function GrantsPage(props: { viewer: Operator; records: GrantRecord[]; notice: string | null }) {
  return (
    <Page title="Grants" viewer={props.viewer}>
      <h1>Connector grants</h1>
      {props.notice === null ? null : <Notice kind="info">{props.notice}</Notice>}
      {props.records.length === 0 ? <p class="muted">No app is connected.</p> : null}
      {props.records.map((record) => (
        <GrantRow record={record} />
      ))}
    </Page>
  );
}

/** The grant a route names, of the operator's own tenant, or null. */
async function recordOf(c: ConsoleContext): Promise<GrantRecord | null> {
  const id = c.req.param("grant") ?? "";
  if (!GRANT_ID.test(id)) return null;
  return readRecord(c.env, c.get("operator").tenant, id);
}

async function revoke(env: Env, record: GrantRecord): Promise<void> {
  const api = env.OAUTH_PROVIDER;
  if (api !== undefined) {
    let cursor: string | undefined;
    do {
      const page = await api.listUserGrants(record.user_id, { cursor });
      for (const g of page.items) {
        if ((g.metadata as { grant?: string } | null)?.grant === record.grant) {
          await api.revokeGrant(g.id, record.user_id);
        }
      }
      cursor = page.cursor;
    } while (cursor !== undefined);
  }
  await env.OAUTH_KV.delete(recordKey(record.tenant, record.grant));
}

/** Mount the grants page on an app whose requests carry a signed-in operator. */
export function mountGrants(app: Hono<ConsoleEnv>, fence: Fence): void {
  const page = async (c: ConsoleContext, notice: string | null, status = 200) => {
    const records = await listRecords(c.env, c.get("operator").tenant);
    return html(
      <GrantsPage viewer={c.get("operator")} records={records} notice={notice} />,
      status,
    );
  };
  app.get("/console/grants", (c) => page(c, null));

  app.post("/console/grants/:grant/revoke", async (c) => {
    const record = await recordOf(c);
    if (record === null) return page(c, "No such grant.", 404);
    await revoke(c.env, record);
    return page(c, `The grant of ${record.client_name} is revoked; its tokens are refused.`);
  });

  app.post("/console/grants/:grant/tighten", async (c) => {
    const record = await recordOf(c);
    if (record === null) return page(c, "No such grant.", 404);
    const base: RunLimits = { ...record.limits, tool_caps: {} };
    const form = await c.req.parseBody({ all: true });
    const limits = limitsOfForm(fence, base, form);
    if (!limits.ok) return page(c, `Not tightened: ${limits.error}`, 422);
    const local = isLocalDevelopment(c.req.raw.headers, c.req.url);
    const runId = runIdOf(record.grant, record.run);
    const ref = { tenant: record.tenant, runId, by: `grant:${record.grant}`, local };
    await ledgerOf(c.env, ref).open(ref, overrideOf(limits.limits), true);
    await writeRecord(c.env, { ...record, limits: limits.limits });
    return page(c, `The grant of ${record.client_name} is tightened.`);
  });
}
