/**
 * The benchmark jobs: FakeSource (5 columns) into Console with log.print.data = false, which
 * returns at once for every batch without formatting a row (ConsoleSinkWriter.write), so the
 * sink costs nothing and the numbers measure the engine: source, queues, transforms, metrics.
 */
export interface BenchJob {
  name: string;
  parallelism: number;
  /** Rows per parallel reader (FakeSource row.num is per degree of parallelism). */
  rowsPerReader: number;
  /** A Sql transform of 5 expressions and a WHERE between source and sink. */
  sql: boolean;
}

/** The Sql query of the `sql` variant: 5 expressions (functions, arithmetic, CASE) and a WHERE. */
export const BENCH_QUERY =
  "select id, upper(name) as uname, age + 1 as age1, score * 2 as score2, case when age > 50 then 'old' else 'young' end as band from fake where age >= 10";

export function jobConfigText(j: BenchJob): string {
  const transform = j.sql
    ? `transform {\n  Sql {\n    plugin_input = "fake"\n    plugin_output = "out"\n    query = "${BENCH_QUERY}"\n  }\n}\n`
    : '';
  return `env {
  job.mode = "BATCH"
  parallelism = ${j.parallelism}
  job.name = "bench-${j.name}"
}
source {
  FakeSource {
    plugin_output = "fake"
    row.num = ${j.rowsPerReader}
    split.num = 1
    int.min = 0
    int.max = 100
    schema = {
      fields {
        id = "bigint"
        name = "string"
        age = "int"
        score = "double"
        city = "string"
      }
    }
  }
}
${transform}sink {
  Console {
    plugin_input = "${j.sql ? 'out' : 'fake'}"
    log.print.data = false
  }
}
`;
}

/**
 * The job of the checkpoint benchmarks: FakeSource (5 columns, `rowsPerReader` per reader, 4
 * splits) into LocalFile text with transactions, BATCH, checkpointed every `intervalMs` (or only
 * once at the end when undefined).
 */
export function checkpointJobText(out: string, rowsPerReader: number, parallelism: number, intervalMs: number | undefined): string {
  return `
env {
  job.mode = "BATCH"
  parallelism = ${parallelism}
  ${intervalMs ? `checkpoint.interval = ${intervalMs}` : ''}
}
source {
  FakeSource {
    plugin_output = "fake"
    row.num = ${rowsPerReader}
    split.num = 4
    schema = { fields { id = "bigint", name = "string", age = "int", score = "double", day = "date" } }
  }
}
sink {
  LocalFile {
    plugin_input = "fake"
    path = "${out}"
    file_format_type = "text"
    is_enable_transaction = true
  }
}
`;
}
