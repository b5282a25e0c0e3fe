/**
 * Upstream connections in the console: `/console/connections`, the signed-in principal's own
 * (upstream, since when, last used, scopes, the upstream's subject), each with Delete; and
 * `/console/connections/tenant`, every connection of the tenant, which an operator revokes one
 * at a time or all of one upstream's at once. Deleting revokes the tokens at the upstream's
 * revocation endpoint when it has one (PrincipalConnections.remove). Every act goes to the
 * owner's own object; the tenant's directory only says whose objects to ask.
 */
import type { Hono } from "hono";
import { tenantOwners } from "../connections/directory.ts";
import { connectionsOf } from "../connections/objects.ts";
import type { ConnectionView } from "../connections/protocol.ts";
import {
  type ConnectionOwner,
  OWNER_ID,
  ownerIdOf,
  ownerName,
  ownerOf,
} from "../core/connection-owner.ts";
import type { ConsoleContext, ConsoleEnv } from "./context.ts";
import { html, Notice, Page, utcTime } from "./layout.tsx";

/** The signed-in operator as the owner of connections, with their id. */
async function selfOf(
  c: ConsoleContext,
): Promise<{ owner: ConnectionOwner; ownerId: string } | null> {
  const owner = ownerOf(c.get("operator").principal);
  return owner === null ? null : { owner, ownerId: await ownerIdOf(owner) };
}

function when(ms: number | null): string {
  return ms === null ? "never" : utcTime(new Date(ms).toISOString());
}

function Row(props: { view: ConnectionView; action: string; owner: boolean }) {
  const { view } = props;
  return (
    <tr>
      {props.owner ? <td>{ownerName(view.owner)}</td> : null}
      <td>
        <strong>{URL.parse(view.upstream)?.host ?? view.upstream}</strong>
        <br />
        <span class="muted">{view.upstream}</span>
      </td>
      <td>{view.subject ?? <span class="muted">not said</span>}</td>
      <td>{view.scope ?? <span class="muted">not said</span>}</td>
      <td>{when(view.created_at)}</td>
      <td>{when(view.last_used_at)}</td>
      <td>
        <form class="inline" method="post" action={props.action}>
          <input type="hidden" name="id" value={view.id} />
          <input type="hidden" name="owner_id" value={view.owner_id} />
          <button type="submit">{props.owner ? "Revoke" : "Delete"}</button>
        </form>
      </td>
    </tr>
  );
}

function Table(props: { views: ConnectionView[]; action: string; owner: boolean }) {
  return (
    <div class="scroll">
      <table>
        <thead>
          <tr>
            {props.owner ? <th>Whose</th> : null}
            <th>Upstream</th>
            <th>Upstream subject</th>
            <th>Scopes</th>
            <th>Since</th>
            <th>Last used</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {props.views.map((view) => (
            <Row view={view} action={props.action} owner={props.owner} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The upstreams of `views`, each once. */
function upstreamsOf(views: ConnectionView[]): string[] {
  return [...new Set(views.map((v) => v.upstream))].sort();
}

function notice(c: ConsoleContext) {
  const done = c.req.query("done");
  return done === undefined || !/^\d{1,4}$/.test(done) ? null : (
    <Notice kind="info">
      {done === "1" ? "1 connection deleted" : `${done} connections deleted`}, and revoked at the
      upstream where it has a revocation endpoint.
    </Notice>
  );
}

/** The connections pages and their forms, on the console's app (base path `/console`). */
export function mountConnections(app: Hono<ConsoleEnv>): void {
  app.get("/connections", async (c) => {
    const operator = c.get("operator");
    const self = await selfOf(c);
    const views =
      self === null ? [] : await connectionsOf(c.env, operator.tenant, self.ownerId).list();
    return html(
      <Page title="Connections" viewer={operator}>
        <h1>Your connections</h1>
        {notice(c)}
        <p class="muted">
          Upstreams the fence calls as you, with your own tokens: made when a call asked you to
          connect, and used by your keys' and your connected apps' calls. Deleting one revokes it;
          the next call asks you again.{" "}
          <a href="/console/connections/tenant">All of the tenant's</a>
        </p>
        {views.length === 0 ? (
          <p>No connections.</p>
        ) : (
          <Table views={views} action="/console/connections/delete" owner={false} />
        )}
      </Page>,
    );
  });

  app.post("/connections/delete", async (c) => {
    const form = await c.req.parseBody();
    const self = await selfOf(c);
    const id = typeof form.id === "string" ? form.id : "";
    const removed =
      self === null
        ? false
        : await connectionsOf(c.env, c.get("operator").tenant, self.ownerId).remove(id);
    return c.redirect(`/console/connections?done=${removed ? 1 : 0}`, 303);
  });

  app.get("/connections/tenant", async (c) => {
    const operator = c.get("operator");
    const owners = await tenantOwners(c.env, operator.tenant);
    const lists = await Promise.all(
      owners.map((o) => connectionsOf(c.env, operator.tenant, o).list()),
    );
    const views = lists.flat().sort((a, b) => b.created_at - a.created_at);
    return html(
      <Page title="Tenant connections" viewer={operator}>
        <h1>Connections of tenant {operator.tenant}</h1>
        {notice(c)}
        <p class="muted">
          Every principal's upstream connections. Revoking one ends it at the upstream too; its
          owner's next call asks them to connect again.
        </p>
        {views.length === 0 ? (
          <p>No connections.</p>
        ) : (
          <>
            <Table views={views} action="/console/connections/tenant/revoke" owner={true} />
            <h2>Revoke all of one upstream's</h2>
            {upstreamsOf(views).map((upstream) => (
              <form method="post" action="/console/connections/tenant/revoke-upstream">
                <input type="hidden" name="upstream" value={upstream} />
                <label>
                  <input type="checkbox" name="confirm" value="yes" required /> Revoke every
                  connection to <code>{upstream}</code>
                </label>{" "}
                <button type="submit">Revoke all</button>
              </form>
            ))}
          </>
        )}
      </Page>,
    );
  });

  app.post("/connections/tenant/revoke", async (c) => {
    const form = await c.req.parseBody();
    const ownerId = typeof form.owner_id === "string" ? form.owner_id : "";
    const id = typeof form.id === "string" ? form.id : "";
    const tenant = c.get("operator").tenant;
    const removed =
      OWNER_ID.test(ownerId) && (await connectionsOf(c.env, tenant, ownerId).remove(id));
    return c.redirect(`/console/connections/tenant?done=${removed ? 1 : 0}`, 303);
  });

  app.post("/connections/tenant/revoke-upstream", async (c) => {
    const form = await c.req.parseBody();
    const upstream = typeof form.upstream === "string" ? form.upstream : "";
    if (form.confirm !== "yes" || upstream === "") {
      return c.redirect("/console/connections/tenant?done=0", 303);
    }
    const tenant = c.get("operator").tenant;
    const owners = await tenantOwners(c.env, tenant);
    const counts = await Promise.all(
      owners.map((o) => connectionsOf(c.env, tenant, o).removeUpstream(upstream)),
    );
    const removed = counts.reduce((a, b) => a + b, 0);
    return c.redirect(`/console/connections/tenant?done=${removed}`, 303);
  });
}
