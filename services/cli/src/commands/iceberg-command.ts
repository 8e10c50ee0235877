import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { fileErrorText } from '@tideway/common';
import { findDotted, hocon } from '@tideway/config';
import { UsageError, usageLine } from '../usage.js';

/** What the maintenance actions take: the catalog (as the Iceberg sink's options name it) and the table. */
interface Target {
  readonly catalogName: string;
  readonly catalog: Record<string, string>;
  readonly namespace: string[];
  readonly table: string;
}

interface CommonOptions {
  catalog: string;
  table?: string;
  json?: boolean;
}

/**
 * The catalog file: the Iceberg sink's catalog options (catalog_name, iceberg.catalog.config, and
 * optionally namespace and table), in HOCON or JSON; `--table ns.table` names or overrides the table.
 */
async function targetOf(cmd: Command, opts: CommonOptions): Promise<Target> {
  const { catalogConfigProblem } = await import('@tideway/connector-iceberg');
  const file = opts.catalog;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`--catalog ${file}: ${fileErrorText(err)}`, usageLine(cmd));
  }
  const root = hocon.toPlain(hocon.loadHocon(text, { file, json: file.endsWith('.json') })).value as Record<string, unknown>;
  const config = findDotted(root, ['iceberg', 'catalog', 'config'])?.value;
  if (typeof config !== 'object' || config === null || Array.isArray(config)) {
    throw new UsageError(
      `${file}: needs 'iceberg.catalog.config' (the catalog, as the Iceberg sink's option of that name)`,
      usageLine(cmd),
    );
  }
  const catalog = flatten(config as Record<string, unknown>);
  const problem = catalogConfigProblem(catalog);
  if (problem) throw new UsageError(`${file}: ${problem}`, usageLine(cmd));
  catalog.type = catalog.type.toLowerCase();
  const known = new Set(['catalog_name', 'namespace', 'table']);
  const unknown = Object.keys(flatten(root)).find((k) => !known.has(k) && !k.startsWith('iceberg.catalog.config.'));
  if (unknown)
    throw new UsageError(
      `${file}: option '${unknown}' is not supported here (catalog_name, iceberg.catalog.config, namespace, table)`,
      usageLine(cmd),
    );
  let namespace = typeof root.namespace === 'string' ? root.namespace : undefined;
  let table = typeof root.table === 'string' ? root.table : undefined;
  if (opts.table) {
    const dot = opts.table.lastIndexOf('.');
    if (dot <= 0 || dot === opts.table.length - 1)
      throw new UsageError(`--table ${opts.table}: a table is named namespace.table`, usageLine(cmd));
    namespace = opts.table.slice(0, dot);
    table = opts.table.slice(dot + 1);
  }
  if (!namespace || !table)
    throw new UsageError(`${file}: no table: set 'namespace' and 'table' there or pass --table namespace.table`, usageLine(cmd));
  const catalogName = typeof root.catalog_name === 'string' ? root.catalog_name : '';
  if (!catalogName && catalog.type !== 'hadoop')
    throw new UsageError(`${file}: needs 'catalog_name' for a ${catalog.type} catalog`, usageLine(cmd));
  return { catalogName, catalog, namespace: namespace.split('.'), table };
}

/** An object's leaves by dotted path (HOCON's `jdbc.user = x` is an object jdbc { user }; a quoted "s3.endpoint" is one key), values as text. */
function flatten(obj: Record<string, unknown>, prefix = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(obj)) {
    if (typeof v === 'object' && v !== null && !Array.isArray(v))
      Object.assign(out, flatten(v as Record<string, unknown>, `${prefix}${k}.`));
    else out[`${prefix}${k}`] = String(v);
  }
  return out;
}

function positiveInt(cmd: Command, flag: string, text: string | undefined, min: number): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text) || Number(text) < min)
    throw new UsageError(`${flag} ${text}: not a whole number of at least ${min}`, usageLine(cmd));
  return Number(text);
}

/** Runs `fn` on the target's catalog and prints its result (JSON with --json, else one line). */
async function run<T extends object>(
  cmd: Command,
  opts: CommonOptions,
  fn: (
    lib: typeof import('@tideway/connector-iceberg'),
    catalog: import('@tideway/connector-iceberg').IcebergCatalog,
    ident: { namespace: string[]; name: string },
  ) => Promise<T>,
  line: (r: T, table: string) => string,
): Promise<void> {
  const target = await targetOf(cmd, opts);
  const lib = await import('@tideway/connector-iceberg');
  const catalog = lib.openCatalog({ catalog: target.catalog, catalogName: target.catalogName });
  const ident = { namespace: target.namespace, name: target.table };
  try {
    const result = await fn(lib, catalog, ident);
    const name = lib.formatIdent(ident);
    process.stdout.write(
      opts.json
        ? `${JSON.stringify({ table: name, ...result }, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))}\n`
        : `${line(result, name)}\n`,
    );
  } finally {
    await catalog.close();
  }
}

const CATALOG_HELP =
  "a HOCON or JSON file with the Iceberg sink's catalog options: catalog_name, iceberg.catalog.config { type = hadoop|sql|jdbc|rest, warehouse, uri, ... } and optionally namespace and table";

/** `tideway iceberg <action>`: maintenance of an Iceberg table through its catalog. */
export function registerIcebergCommand(program: Command): void {
  const iceberg = program
    .command('iceberg')
    .description('maintenance of an Iceberg table: expire old snapshots, remove orphan files, compact small data files');
  const common = (c: Command): Command =>
    c
      .requiredOption('--catalog <file>', CATALOG_HELP)
      .option('--table <namespace.table>', "the table (overrides the file's namespace and table)")
      .option('--json', 'print the result as JSON');

  const expire = common(
    iceberg
      .command('expire-snapshots')
      .description(
        'remove snapshots older than --older-than from the table metadata (never the current one, a branch or tag head, nor the newest --retain-last of main), ' +
          'commit the metadata through the catalog, then delete the manifest lists, manifests, data and delete files no remaining snapshot reaches',
      )
      .requiredOption(
        '--older-than <duration|timestamp>',
        'a duration before now (30s, 15m, 12h, 5d, 1w), an ISO 8601 timestamp, or epoch milliseconds',
      )
      .option('--retain-last <n>', "the newest snapshots of main's history kept whatever their age", '1'),
  );
  expire.action(async (opts: CommonOptions & { olderThan: string; retainLast: string }) => {
    const { cutoffOf } = await import('@tideway/connector-iceberg');
    const cutoff = cutoffOf(opts.olderThan, Date.now());
    if (cutoff === undefined)
      throw new UsageError(
        `--older-than ${opts.olderThan}: not a duration (30s, 15m, 12h, 5d, 1w), ISO 8601 timestamp or epoch milliseconds`,
        usageLine(expire),
      );
    const retainLast = positiveInt(expire, '--retain-last', opts.retainLast, 1)!;
    await run(
      expire,
      opts,
      (lib, catalog, ident) => lib.expireSnapshots(catalog, ident, { olderThanMs: cutoff, retainLast }),
      (r, t) =>
        `${t}: ${r.expiredSnapshots} snapshot(s) expired; deleted ${r.deletedDataFiles} data file(s), ${r.deletedDeleteFiles} delete file(s), ${r.deletedManifests} manifest(s), ${r.deletedManifestLists} manifest list(s)`,
    );
  });

  const orphans = common(
    iceberg
      .command('remove-orphan-files')
      .description(
        'delete the files under the table location that no snapshot or metadata reaches and that were written before --older-than (metadata JSON files are kept)',
      )
      .option('--older-than <duration>', 'only files older than this (30s, 15m, 12h, 5d, 1w)', '3d'),
  );
  orphans.action(async (opts: CommonOptions & { olderThan: string }) => {
    const { durationMs } = await import('@tideway/connector-iceberg');
    const age = durationMs(opts.olderThan);
    if (age === undefined)
      throw new UsageError(`--older-than ${opts.olderThan}: not a duration (30s, 15m, 12h, 5d, 1w)`, usageLine(orphans));
    const cutoff = Date.now() - age;
    await run(
      orphans,
      opts,
      (lib, catalog, ident) => lib.removeOrphanFiles(catalog, ident, { olderThanMs: cutoff }),
      (r, t) => `${t}: ${r.removedFiles.length} orphan file(s) removed of ${r.listedFiles} listed`,
    );
  });

  const rewrite = common(
    iceberg
      .command('rewrite-data-files')
      .description(
        "compact each partition's small data files (and those with deletes) into files of the target size, deletes applied, as one replace snapshot; " +
          'old snapshots keep reading the old files until they are expired',
      )
      .option(
        '--target-file-size-bytes <n>',
        "the size of the files written (default: the table's write.target-file-size-bytes, else 512 MiB)",
      )
      .option('--min-input-files <n>', 'a partition is rewritten when it has at least this many files to rewrite', '5'),
  );
  rewrite.action(async (opts: CommonOptions & { targetFileSizeBytes?: string; minInputFiles: string }) => {
    const targetFileBytes = positiveInt(rewrite, '--target-file-size-bytes', opts.targetFileSizeBytes, 1);
    const minInputFiles = positiveInt(rewrite, '--min-input-files', opts.minInputFiles, 1)!;
    await run(
      rewrite,
      opts,
      (lib, catalog, ident) => lib.rewriteDataFiles(catalog, ident, { targetFileBytes, minInputFiles }),
      (r, t) =>
        r.snapshotId === undefined
          ? `${t}: nothing to rewrite`
          : `${t}: ${r.rewrittenDataFiles} data file(s) in ${r.rewrittenPartitions} partition(s) rewritten as ${r.addedDataFiles}; ${r.removedDeleteFiles} delete file(s) removed (snapshot ${r.snapshotId})`,
    );
  });
}
