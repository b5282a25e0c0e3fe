/**
 * Re-pinning a drifted MCP tool: `/console/tools/{name}/pin` shows the pinned and the current
 * listing side by side with their diff, what the listing scan finds in the current one, and
 * the drift check's record. An operator who accepts the new listing records it in the audit
 * (a run of its own, `pin-{tool}-{ms}`) and is shown the pin file to commit: the contracts in
 * the repository stay the source of truth, so nothing here changes what the fence runs.
 */
import type { Hono } from "hono";
import type { McpUpstream, ToolContract } from "../core/contract.ts";
import { type ListingFinding, scanListedTool } from "../core/guardrails/listing-scan.ts";
import { lineDiff, pinnedViewOf, prettyLines } from "../core/pin-diff.ts";
import type { Fence } from "../core/policy.ts";
import { callHeaders } from "../execute/call-identity.ts";
import { type DriftRecord, driftOf, listedHash } from "../execute/drift.ts";
import { ledgerOf } from "../ledger/address.ts";
import type { ConsoleContext, ConsoleEnv, Operator } from "./context.ts";
import { html, Notice, Page } from "./layout.tsx";

type McpContract = ToolContract & { upstream: McpUpstream };

/** What the tool's server lists now. */
type Current =
  | { status: "unlisted" }
  | { status: "gone" }
  | {
      status: "listed";
      /** The listing as a pin holds it. */
      view: Record<string, unknown>;
      /** Its hash, the pin's form. */
      sha256: string;
      /** What the listing scan finds in it. */
      findings: ListingFinding[];
    };

/** The server's tools now, listed as a call of the operator's tenant would list them. */
async function currentOf(c: ConsoleContext, fence: Fence, contract: McpContract): Promise<Current> {
  // Loaded here, not at startup (see src/execute/execute.ts).
  const { listMcpTools } = await import("../execute/mcp.ts");
  const who = { tenant: c.get("operator").tenant, runId: `console-${crypto.randomUUID()}` };
  const tools = await listMcpTools(contract.upstream, c.env, callHeaders(who)).catch(() => null);
  if (tools === null) return { status: "unlisted" };
  const tool = tools.find((t) => t.name === contract.upstream.tool);
  if (tool === undefined) return { status: "gone" };
  const names = [...tools.map((t) => t.name), ...fence.tools.keys()];
  return {
    status: "listed",
    view: pinnedViewOf(tool),
    sha256: await listedHash(tool),
    findings: scanListedTool(tool, names),
  };
}

function mcpContractOf(fence: Fence, name: string): McpContract | null {
  const contract = fence.tools.get(name);
  return contract?.upstream.kind === "mcp" ? (contract as McpContract) : null;
}

/** The pin file `npm run contracts -- import` would write for the current listing. */
function pinFileOf(contract: McpContract, current: Extract<Current, { status: "listed" }>): string {
  const { tool, pinned } = contract.upstream;
  const found = current.findings;
  const pin = {
    tool,
    source: pinned.source,
    sha256: current.sha256,
    schema: current.view,
    ...(found.length === 0 ? {} : { findings: found }),
  };
  return `${JSON.stringify(pin, null, 2)}\n`;
}

function Findings(props: { title: string; findings: readonly ListingFinding[] }) {
  if (props.findings.length === 0) return <p class="muted">{props.title}: none.</p>;
  return (
    <table class="issues listing-findings">
      <caption>{props.title}</caption>
      <thead>
        <tr>
          <th>Finding</th>
          <th>Where</th>
          <th>What</th>
        </tr>
      </thead>
      <tbody>
        {props.findings.map((f) => (
          <tr data-kind={f.kind}>
            <td>
              <code>{f.kind}</code>
            </td>
            <td>
              <code>{f.at}</code>
            </td>
            <td>{f.what}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Recorded(props: { record: DriftRecord | null }) {
  const { record } = props;
  if (record === null) {
    return <p class="muted">The scheduled drift check has recorded no drift for this tool.</p>;
  }
  return (
    <Notice kind="error">
      The drift check recorded the tool <strong>{record.status}</strong> at {record.checked_at}.
      Calls to it are refused (<code>upstream_drifted</code>) unless the policy says{" "}
      <code>on_drift: "allow"</code>.
    </Notice>
  );
}

interface PinView {
  operator: Operator;
  contract: McpContract;
  current: Current;
  record: DriftRecord | null;
  error: string | null;
}

function PinPage(props: PinView) {
  const { contract, current } = props;
  const { pinned, tool } = contract.upstream;
  const pinnedFindings = (pinned as { findings?: ListingFinding[] }).findings ?? [];
  const changed = current.status === "listed" && current.sha256 !== pinned.sha256;
  return (
    <Page title={`Pin of ${contract.name}`} viewer={props.operator}>
      <h1>
        Pin of <code>{contract.name}</code>
      </h1>
      <p class="muted">
        The server's tool <code>{tool}</code>, pinned from <code>{pinned.source}</code>.
      </p>
      {props.error === null ? null : <Notice kind="error">{props.error}</Notice>}
      <Recorded record={props.record} />
      {current.status === "unlisted" ? (
        <Notice kind="error">The server could not be listed now; nothing to compare.</Notice>
      ) : null}
      {current.status === "gone" ? (
        <Notice kind="error">The server no longer lists the tool: there is no new pin.</Notice>
      ) : null}
      {current.status === "listed" && !changed ? (
        <Notice kind="info">The server lists the tool as pinned.</Notice>
      ) : null}
      <div class="grid pin-sides">
        <section>
          <h2>Pinned</h2>
          <p class="muted">
            <code>{pinned.sha256}</code>
          </p>
          <pre class="pinned">{prettyLines(pinned.schema).join("\n")}</pre>
        </section>
        <section>
          <h2>Listed now</h2>
          {current.status === "listed" ? (
            <>
              <p class="muted">
                <code>{current.sha256}</code>
              </p>
              <pre class="current">{prettyLines(current.view).join("\n")}</pre>
            </>
          ) : (
            <p class="muted">Nothing.</p>
          )}
        </section>
      </div>
      {changed ? (
        <>
          <h2>Diff</h2>
          <pre class="diff">{lineDiff(pinned.schema, current.view).join("\n")}</pre>
          <Findings title="Findings of the listing scan, now" findings={current.findings} />
        </>
      ) : null}
      <Findings title="Findings pinned with the contract" findings={pinnedFindings} />
      {changed ? <AcceptForm name={contract.name} sha256={current.sha256} /> : null}
    </Page>
  );
}

function AcceptForm(props: { name: string; sha256: string }) {
  return (
    <form method="post" action={`/console/tools/${props.name}/pin`} class="panel">
      <input type="hidden" name="sha256" value={props.sha256} />
      <label for="note">Why (kept in the audit)</label>
      <input id="note" name="note" type="text" maxlength={500} />
      <label>
        <input type="checkbox" name="confirm" value="yes" required /> I reviewed the listing above
        and its findings
      </label>
      <button type="submit" class="primary">
        Accept the new pin
      </button>
      <p class="muted">
        Records who accepted it in the audit and shows the pin file to commit. The fence goes on
        refusing the tool until the contract with the new pin is deployed.
      </p>
    </form>
  );
}

function AcceptedPage(props: {
  operator: Operator;
  contract: McpContract;
  runId: string;
  pinFile: string;
  diff: string[];
}) {
  const { contract } = props;
  const sha = (JSON.parse(props.pinFile) as { sha256: string }).sha256;
  return (
    <Page title={`Pin of ${contract.name} accepted`} viewer={props.operator}>
      <h1>
        New pin of <code>{contract.name}</code> accepted
      </h1>
      <Notice kind="info">
        Recorded in the audit of run <a href={`/console/runs/${props.runId}`}>{props.runId}</a>.
      </Notice>
      <p>
        Save this as <code>{contract.name}.pin.json</code> beside the contract, set the contract's{" "}
        <code>version</code> to <code>{sha.slice(0, 12)}</code>, review its schemas against the new
        listing, and commit and deploy it. Until then the fence runs the contract as committed.
      </p>
      <pre class="pin-file">{props.pinFile}</pre>
      <h2>Diff against the committed pin</h2>
      <pre class="diff">{props.diff.join("\n")}</pre>
    </Page>
  );
}

const SHA256 = /^[0-9a-f]{64}$/;
const MAX_NOTE = 500;

/** `GET` and `POST /console/tools/{name}/pin`. */
export function mountPins(
  app: Hono<ConsoleEnv>,
  fence: Fence,
  missing: (c: ConsoleContext) => Promise<Response>,
): void {
  const view = async (
    c: ConsoleContext,
    contract: McpContract,
    error: string | null,
    status = 200,
  ) => {
    const [current, record] = await Promise.all([
      currentOf(c, fence, contract),
      driftOf(c.env, contract.name),
    ]);
    const props = { operator: c.get("operator"), contract, current, record, error };
    return html(<PinPage {...props} />, status);
  };

  app.get("/tools/:name/pin", async (c) => {
    const contract = mcpContractOf(fence, c.req.param("name"));
    return contract === null ? missing(c) : view(c, contract, null);
  });

  app.post("/tools/:name/pin", async (c) => {
    const contract = mcpContractOf(fence, c.req.param("name"));
    if (contract === null) return missing(c);
    // The console's body limit (16 KiB) bounds the form; it is kept whole as the evidence.
    const text = await c.req.text();
    const form = new URLSearchParams(text);
    const sha256 = form.get("sha256") ?? "";
    const note = (form.get("note") ?? "").trim();
    if (!SHA256.test(sha256) || form.get("confirm") !== "yes" || note.length > MAX_NOTE) {
      return view(
        c,
        contract,
        "Confirm that you reviewed the listing (and keep the note short).",
        422,
      );
    }
    const current = await currentOf(c, fence, contract);
    if (current.status !== "listed" || current.sha256 !== sha256) {
      const error = "The server's listing changed since the page was shown: review it again.";
      return view(c, contract, error, 409);
    }
    if (sha256 === contract.upstream.pinned.sha256) {
      return view(
        c,
        contract,
        "The server lists the tool as pinned: there is nothing to accept.",
        409,
      );
    }
    const operator = c.get("operator");
    const runId = `pin-${contract.name}-${Date.now()}`.slice(0, 64);
    const ref = { tenant: operator.tenant, runId };
    const act = {
      actor: operator.keyId ?? "development",
      note: `accepted the listing ${sha256} of ${contract.upstream.tool}${note === "" ? "" : `: ${note}`}`,
      evidence: {
        contentType: c.req.header("Content-Type") ?? null,
        payload: text,
        truncated: false,
      },
    };
    if (!(await ledgerOf(c.env, ref).recordAct(ref, contract.name, act))) {
      return view(c, contract, "The audit refused the act (too many open runs); try again.", 503);
    }
    const pinFile = pinFileOf(contract, current);
    const diff = lineDiff(contract.upstream.pinned.schema, current.view);
    return html(
      <AcceptedPage
        operator={operator}
        contract={contract}
        runId={runId}
        pinFile={pinFile}
        diff={diff}
      />,
    );
  });
}
