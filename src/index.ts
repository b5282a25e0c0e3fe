import { buildConsole } from "./console/app.tsx";
import { FENCE } from "./fence.ts";
import { buildApp } from "./http/app.ts";
import { principalOfDigest, principalOfKey, signInFailuresExceeded } from "./http/auth.ts";
import { MAX_JSON_DEPTH } from "./http/limits.ts";

export { TicketDesk } from "./demo/TicketDesk.ts";
export { DemoUpstreams } from "./demo/upstreams.ts";
export { RunLedger } from "./ledger/RunLedger.ts";
export { TenantLedger } from "./ledger/TenantLedger.ts";

const api = buildApp(FENCE);
const operatorConsole = buildConsole({
  fence: FENCE,
  principalOfKey,
  principalOfDigest,
  signInFailuresExceeded,
  maxDepth: MAX_JSON_DEPTH,
});

/** `/console` and everything under it is the operator console; the rest is the API. */
function isConsole(path: string): boolean {
  return path === "/console" || path.startsWith("/console/");
}

export default {
  fetch(request, env, ctx) {
    const app = isConsole(new URL(request.url).pathname) ? operatorConsole : api;
    return app.fetch(request, env, ctx);
  },
} satisfies ExportedHandler<Env>;
