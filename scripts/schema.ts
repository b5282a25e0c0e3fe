/**
 * `npm run schema`: write src/ledger/schema/fresh-schema.ts, the schema each ledger's migration steps
 * leave, so a new object builds its database in one step. Run it after adding a step to
 * src/ledger/schema/migrations.ts; a test fails while the file is out of date.
 */
import { writeFileSync } from "node:fs";
import { MIGRATIONS } from "../src/ledger/schema/migrations.ts";
import {
  CLAIMS_MIGRATIONS,
  TENANT_INDEX_MIGRATIONS,
} from "../src/ledger/schema/tenant-migrations.ts";
import { renderFreshSchemas } from "./lib/schema.ts";

const FRESH_SCHEMA_FILE = "src/ledger/schema/fresh-schema.ts";

writeFileSync(
  FRESH_SCHEMA_FILE,
  renderFreshSchemas(MIGRATIONS, CLAIMS_MIGRATIONS, TENANT_INDEX_MIGRATIONS),
);
process.stdout.write(`wrote ${FRESH_SCHEMA_FILE}\n`);
