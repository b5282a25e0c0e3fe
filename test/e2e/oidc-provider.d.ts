// oidc-provider ships no types; the e2e provider uses its constructor and `listen` only.
declare module "oidc-provider" {
  import type { Server } from "node:http";
  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    listen(port: number, host: string, ready: () => void): Server;
  }
}
