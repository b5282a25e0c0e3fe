/**
 * The demo upstreams worker (demo/wrangler.toml): the tickets service, the log backend and
 * the ops MCP server the demo's tools call, and the tickets' Durable Object.
 */
import { DemoUpstreams } from "./upstreams.ts";

export { TicketDesk } from "./TicketDesk.ts";
export { DemoUpstreams };

export default DemoUpstreams;
