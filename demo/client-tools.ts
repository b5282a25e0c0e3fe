/**
 * The demo's tools in the typed client (client/types.ts), so code written against the demo
 * fence infers their arguments and results as it does for the tools of `contracts/`.
 */
import type { ContractTypes } from "../client/types.ts";
import type { TOOLS } from "./contracts/index.ts";

type DemoContracts = ContractTypes<typeof TOOLS>;

declare module "../client/types.ts" {
  interface Tools extends DemoContracts {}
}
