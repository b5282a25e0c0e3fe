/**
 * Whether the run's storage holds its schema. The schema is built at the object's first write,
 * never by a read: reading `sqlite_master` writes nothing, so a run only ever read (an unseen
 * run's status, a mistyped id) leaves no database behind.
 */
import { FRESH_RUN_SCHEMA } from "../schema/fresh-schema.ts";
import { migrate } from "../schema/migrate.ts";
import { MIGRATIONS } from "../schema/migrations.ts";

/** Whether the schema exists, read once per object; built by the first write that needs it. */
export class RunStorage {
  /** Whether the schema exists. */
  built: boolean;
  private readonly sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.sql = sql;
    this.built =
      sql
        .exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'")
        .toArray().length > 0;
    // An object started on a database an earlier schema built takes the steps it lacks.
    if (this.built) migrate(sql, MIGRATIONS, FRESH_RUN_SCHEMA);
  }

  /** Build the schema unless it exists (a write is about to need it). */
  build(): void {
    if (this.built) return;
    migrate(this.sql, MIGRATIONS, FRESH_RUN_SCHEMA);
    this.built = true;
  }
}
