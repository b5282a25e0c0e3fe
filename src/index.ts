import { DurableObject } from "cloudflare:workers";

export class RunLedger extends DurableObject<Env> {
  ping(): string {
    return "pong";
  }
}

export default {
  async fetch(): Promise<Response> {
    return new Response("ok");
  },
} satisfies ExportedHandler<Env>;
