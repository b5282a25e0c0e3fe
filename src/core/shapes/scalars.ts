/**
 * The scalars the wire shapes are built of: counts and ISO 8601 timestamps.
 */
import * as v from "valibot";

/** A count: a whole number, never negative. */
export const Count = v.pipe(v.number(), v.integer(), v.minValue(0));

/** A moment as ISO 8601 text (`Date.prototype.toISOString`). */
export const Timestamp = v.pipe(v.string(), v.isoTimestamp());

/** A value with a one-line description, published in the OpenAPI document. */
export function described<T extends v.GenericSchema>(schema: T, description: string) {
  return v.pipe(schema, v.description(description));
}
