/**
 * What tracing costs per call: two fences side by side, one exporting every call's spans and
 * its metrics over OTLP/HTTP to a loopback receiver (OTEL_TRACES_SAMPLER_ARG=1, the most it
 * can cost), one with no endpoint, the same calls against each in turn over one connection.
 */
import { mkdirSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { startDev } from "../lib/dev-server.ts";
import { DEFAULT_KEY } from "../lib/target.ts";
import { measureRows, median, NOOP, pairedRatio, rotating } from "./http.ts";
import { BENCH_POLICY } from "./servers.ts";
import type { Table } from "./table.ts";

/** A receiver that takes every export and answers 200, counting the requests and bytes. */
async function sink() {
  const got = { requests: 0, bytes: 0 };
  const server = createServer((req, res) => {
    req.on("data", (c: Buffer) => {
      got.bytes += c.length;
    });
    req.on("end", () => {
      got.requests++;
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const stop = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return { url: `http://127.0.0.1:${port}`, got, stop };
}

/** A body cut short: refused at the gate (400) and recorded; a refusal's spans are always exported. */
const BROKEN = () => '{"tool":"noop","args":{}';

export async function benchTelemetry(root: string, quick: boolean): Promise<Table> {
  const duration = quick ? 1 : 4;
  mkdirSync(root, { recursive: true });
  const receiver = await sink();
  const vars = { DEMO_LOG_LATENCY_MS: "0-0", DEV_KEY: DEFAULT_KEY };
  // wrangler's own local tracing off in both, so only the fence's telemetry differs.
  const options = {
    stateRoot: root,
    env: { X_LOCAL_OBSERVABILITY: "false" },
    policy: BENCH_POLICY,
  };
  const off = await startDev(vars, options);
  const on = await startDev(
    { ...vars, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_TRACES_SAMPLER_ARG: "1" },
    options,
  );
  try {
    const rows = [
      { name: "noop call", body: () => NOOP, calls: 20, expect: 200 },
      { name: "refusal (malformed JSON, recorded)", body: BROKEN, calls: 20, expect: 400 },
    ].flatMap((r) =>
      (["fence", "floor"] as const).map((server) => ({
        name: `${r.name}${server === "floor" ? ", traced" : ""}`,
        server,
        request: rotating(`tel-${server}-${r.name.length}`, r.calls, r.body),
        expect: r.expect,
      })),
    );
    const groups = { fence: off.group, floor: on.group };
    const figures = await measureRows({ fence: off.url, floor: on.url, groups }, rows, duration, 1);
    const ms = (rps: number[]) => (1000 / median(rps)).toFixed(2);
    const cpu = (xs: number[]) => median(xs).toFixed(2);
    const table: string[][] = [];
    for (let i = 0; i < figures.length; i += 2) {
      const [plain, traced] = [figures[i], figures[i + 1]];
      if (plain === undefined || traced === undefined) continue;
      table.push([
        plain.scenario.name,
        ms(plain.rps),
        ms(traced.rps),
        `${pairedRatio(traced.rps, plain.rps).toFixed(2)}x`,
        median(plain.p50).toFixed(1),
        median(traced.p50).toFixed(1),
        cpu(plain.workerCpu),
        cpu(traced.workerCpu),
      ]);
    }
    return {
      title: "Tracing",
      note:
        `The fence's own telemetry on and off, paired: two \`wrangler dev\` fences, one exporting every call's spans and its metrics over OTLP/HTTP to a loopback receiver (OTEL_TRACES_SAMPLER_ARG=1, every call exported: the most tracing can cost), one with no endpoint; wrangler's local tracing off in both. autocannon, 1 connection, 5 rounds of ${duration} s per row, the two fences in turns, in reverse order every other round. ms per call: 1000 over the median round's req/s; traced/untraced: the traced fence's req/s over the untraced one's, the median of the rounds' ratios; p50: autocannon's median latency; CPU: ms per call of each fence's workerd (its objects included). ` +
        `The export runs after the answer (waitUntil), so what it adds to a call's latency is the CPU it takes from the next call on the same thread. The receiver got ${receiver.got.requests} exports, ${Math.round(receiver.got.bytes / 1024)} KiB.`,
      head: [
        "route",
        "untraced ms/call",
        "traced ms/call",
        "traced/untraced req/s",
        "untraced p50 ms",
        "traced p50 ms",
        "untraced CPU ms/call",
        "traced CPU ms/call",
      ],
      rows: table,
    };
  } finally {
    on.stop();
    off.stop();
    await receiver.stop();
  }
}
