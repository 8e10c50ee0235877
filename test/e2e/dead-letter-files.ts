import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The env block that routes a sink's refused rows (env.sink_error_handler mode ROUTE, with the
 * original row) to JSON files in the folder `dead`, as the sinks' row-error tests use it.
 */
export function sinkErrorRoute(dead: string): string {
  return `sink_error_handler {
    mode = "ROUTE"
    include_original_data = true
    sink {
      plugin_name = "LocalFile"
      path = "${dead}"
      file_format_type = "json"
    }
  }`;
}

/** The rows a LocalFile dead-letter sink wrote as JSON lines into `dead` (none when it wrote no file). */
export function routed(dead: string): Array<Record<string, unknown>> {
  if (!existsSync(dead)) return [];
  return readdirSync(dead)
    .filter((f) => !f.startsWith('.'))
    .flatMap((f) => readFileSync(join(dead, f), 'utf8').split('\n'))
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/**
 * Writes to `file` a BATCH job (parallelism 1, no retry) whose FakeSource emits `rows` (INSERTs of
 * the listed values) of the schema `fields` (HOCON, e.g. `id = "int", name = "string"`) into the
 * `sink` block, with the sink's refused rows routed to `dead` (sinkErrorRoute); returns the file.
 */
export function routedRowsJob(file: string, dead: string, fields: string, rows: readonly (readonly unknown[])[], sink: string): string {
  writeFileSync(
    file,
    `env {
  job.mode = "BATCH"
  parallelism = 1
  job.retry.times = 0
  ${sinkErrorRoute(dead)}
}
source {
  FakeSource {
    schema = { fields { ${fields} } }
    rows = [
${rows.map((r) => `      { kind = INSERT, fields = ${JSON.stringify(r)} }`).join(',\n')}
    ]
  }
}
sink {
${sink}
}
`,
  );
  return file;
}
