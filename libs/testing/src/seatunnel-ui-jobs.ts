/**
 * The jobs SeaTunnel's web UI is looked at with (test/rest/seatunnel-ui-fields.test.ts checks the
 * fields its pages read, `pnpm check:seatunnel-ui` drives its pages): a running job, a finished one
 * and a failed one, as HOCON configs for the REST API's /submit-job.
 */

/**
 * Two tables in one streaming job: users through a Sql transform to one Console, orders straight
 * to another at parallelism 2 (a shuffle), read slowly (one row every 200 ms per source, about
 * 200 s) so the job stays RUNNING; its live vertex and edge metrics are on (SeaTunnel's
 * engine.observability keys).
 */
export const UI_RUNNING_JOB = `env {
  job.mode = "STREAMING"
  parallelism = 1
  checkpoint.interval = 2000
  engine.observability.enabled = true
  engine.observability.bucket_ms = 2000
}
source {
  FakeSource {
    plugin_output = "users"
    row.num = 1000
    split.num = 1000
    split.read-interval = 200
    schema = { table = "shop.users", fields { id = "int", name = "string" } }
  }
  FakeSource {
    plugin_output = "orders"
    row.num = 1000
    split.num = 1000
    split.read-interval = 200
    schema = { table = "shop.orders", fields { id = "int", amount = "double" } }
  }
}
transform {
  Sql { plugin_input = "users", plugin_output = "named", query = "select id, upper(name) as name from users" }
}
sink {
  Console { plugin_input = "named", log.print.data = false }
  Console { plugin_input = "orders", parallelism = 2, log.print.data = false }
}
`;

/** A batch job of 20 rows into a Console: it finishes. */
export const UI_FINISHED_JOB = `env { job.mode = "BATCH", parallelism = 1 }
source { FakeSource { plugin_output = "fake", row.num = 20, schema = { table = "shop.items", fields { id = "int" } } } }
sink { Console { plugin_input = "fake", log.print.data = false } }
`;

/** An Assert sink that allows fewer rows than the source sends: the job fails, with a message. */
export const UI_FAILED_JOB = `env { job.mode = "BATCH", parallelism = 1 }
source { FakeSource { plugin_output = "fake", row.num = 20, schema = { table = "shop.bad", fields { id = "int" } } } }
sink { Assert { plugin_input = "fake", rules { row_rules = [ { rule_type = MAX_ROW, rule_value = 5 } ] } } }
`;
