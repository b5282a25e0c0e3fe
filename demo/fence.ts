/**
 * The demo's fence: its contracts and policy (demo/contracts/), loaded and checked as the
 * deployed worker's are.
 */
import { startFence } from "../src/fence.ts";
import { CONTRACTS, POLICY_SOURCE } from "./contracts/index.ts";

/** The demo tools and the demo policy. */
export const FENCE = startFence(CONTRACTS, POLICY_SOURCE, "demo/contracts/policy.json");
