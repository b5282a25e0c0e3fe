// oidc-provider ships no types; the e2e providers use its constructor, `listen` and `use`.
declare module "oidc-provider" {
  import type { Server } from "node:http";
  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    listen(port: number, host: string, ready: () => void): Server;
    // biome-ignore lint/suspicious/noExplicitAny: Koa middleware; the context is Koa's.
    use(middleware: (ctx: any, next: () => Promise<void>) => Promise<void>): void;
  }
}
