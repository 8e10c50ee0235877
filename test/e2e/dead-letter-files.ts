import { existsSync, readdirSync, readFileSync } from 'node:fs';
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
