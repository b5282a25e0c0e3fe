/** Largest call body accepted, in bytes (checked before and while reading). */
export const MAX_BODY_BYTES = 64 * 1024;

/** Largest body of `PUT /v1/runs/{id}` (a handful of limits). */
export const MAX_LIMITS_BYTES = 8 * 1024;

/** Deepest nesting of arrays and objects accepted in a call. */
export const MAX_JSON_DEPTH = 32;

/** How much of a call's body the audit log keeps. */
export const AUDIT_PAYLOAD_CAP = 8 * 1024;

/** Extra time an idempotency key stays `in_flight` past the call's timeout. */
export const LEASE_MARGIN_MS = 5_000;

/** Default and largest page of the audit log. */
export const AUDIT_PAGE_DEFAULT = 100;
export const AUDIT_PAGE_MAX = 1_000;
