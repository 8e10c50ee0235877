import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEATUNNEL_VERSION, SeaTunnelCluster, runSeaTunnelLocal, seaTunnelHome } from '@tideway/testing';
import { readManifest, repoRoot, sharedConformanceDir, type ManifestCase } from '../conformance/conformance-files.js';
import { variablesOf } from '../conformance/case-cleanup.js';
import { atMost, explicitRowsCopy, runBoth } from './differential.js';
import { KNOWN_SWEEP_DIFFERENCES, sweep, sweepBatches, sweepCalls, sweepRunner, type SweepCall } from './sql-sweep.js';
import { parseJobConfig, type JobConfig } from '@tideway/config';
import { restAnswersFieldByField } from '../rest/seatunnel-rest-oracle.js';

/**
 * Apache SeaTunnel itself (scripts/ensure-seatunnel.sh, decision 0045), run from this suite: one
 * separated cluster (a master and a worker process) started once for the file, and local mode.
 * Skipped outside CI when SeaTunnel cannot be resolved; failed in CI.
 */
const home = seaTunnelHome();
const shared = sharedConformanceDir();

/**
 * The sample of the differential run that the suite runs: Sql numeric functions (RAND() masked),
 * CASE WHEN, criteria and two tables with listed rows (compared on values), Copy, FakeSource with
 * Sql and with job variables, random rows (compared on counts and value kinds).
 * `TIDEWAY_SEATUNNEL_DIFF=all` runs every config both engines can run (differentialCases).
 */
const SAMPLE = [
  'seatunnel-transforms-v2-e2e-part-2__sql_transform_func_numeric.conf',
  'seatunnel-transforms-v2-e2e-part-2__sql_transform_case_when.conf',
  'seatunnel-transforms-v2-e2e-part-2__sql_transform_criteria_filter.conf',
  'connector-seatunnel-e2e-base__batch_fake_multi_table_to_console.conf',
  'seatunnel-transforms-v2-e2e-part-1__copy_transform.conf',
  'connector-fake-e2e__fake_to_assert.conf',
  'connector-seatunnel-e2e-base__fake_to_console.variables.conf',
];

/** Random-row sample configs whose explicit-rows copy the suite runs too (the whole run copies every one). */
const ROWS_COPY_SAMPLE = ['seatunnel-transforms-v2-e2e-part-1__copy_transform.conf'];

const all = process.env.TIDEWAY_SEATUNNEL_DIFF === 'all';

/** SeaTunnel's count of a table written by two sinks (sql_transform_inner_query.conf). */
const TWO_SINKS_COUNTED_ONCE = "SeaTunnel 2.3.8: two sinks of one table count its rows once in the job's Total Write Count";

/** Differences of the explicit-rows copies that docs/seatunnel-differences.md lists as SeaTunnel's. */
const KNOWN_COPY_DIFFERENCES: Record<string, { doc: string; pattern: RegExp }> = {
  // The copy's FakeSource lists 3 rows (withExplicitRows), each written by both sinks.
  'seatunnel-transforms-v2-e2e-part-2__sql_transform_inner_query.conf': {
    doc: TWO_SINKS_COUNTED_ONCE,
    pattern: /^Tideway wrote 6 rows, SeaTunnel 3$/,
  },
  'connector-fake-e2e__fake_generic_row_type_to_assert.conf': {
    doc: 'SeaTunnel 2.3.8: Console prints a row inside a map as its Java object (tableId, rowKind, fields)',
    pattern: /^only (Tideway|SeaTunnel) printed: .*"k\d":/,
  },
};

function describeBatch(batch: readonly SweepCall[]): string {
  const fns = [...new Set(batch.map((c) => c.fn))];
  return fns.length > 3 ? `${fns[0]} .. ${fns[fns.length - 1]} (${batch.length} calls)` : `${fns.join(', ')} (${batch.length} calls)`;
}

/** Columns (1-based) that configs fill at random or from the clock, compared on everything but their values. */
const RANDOM_COLUMNS: Record<string, number[]> = {
  // rand() as rand
  'seatunnel-transforms-v2-e2e-part-2__sql_transform_func_numeric.conf': [24],
  // current_date, now()
  'seatunnel-transforms-v2-e2e-part-2__sql_transform_func_datetime.conf': [1, 2],
};

/**
 * Differences docs/seatunnel-differences.md lists as SeaTunnel's (for the whole run,
 * `TIDEWAY_SEATUNNEL_DIFF=all`): a config's differences must all be of the kind listed.
 */
const STRINGS_EMPTY = {
  doc: 'SeaTunnel 2.3.8: FakeSource strings are empty with a `columns` schema',
  pattern: /column \d+: Tideway printed string, SeaTunnel empty$/,
};
const KNOWN_DIFFERENCES: Record<string, { doc: string; pattern: RegExp }> = {
  'connector-assert-e2e__assertion_fake_full_types_to_assert.conf': {
    doc: 'SeaTunnel 2.3.8: Console prints a row inside a map as its Java object (tableId, rowKind, fields)',
    pattern: /^only (Tideway|SeaTunnel) printed: .*"k1":/,
  },
  'connector-fake-e2e__fake_to_assert_with_catalogtable.conf': STRINGS_EMPTY,
  'connector-fake-e2e__fake_to_assert_with_tablenames.conf': STRINGS_EMPTY,
  'connector-fake-e2e__fake_to_console_with_multitable_mode.conf': STRINGS_EMPTY,
  'seatunnel-transforms-v2-e2e-part-2__sql_transform_inner_query.conf': {
    doc: TWO_SINKS_COUNTED_ONCE,
    pattern: /^Tideway wrote 200 rows, SeaTunnel 100$/,
  },
};

/** The plugins of SeaTunnel's home (decision 0045), Assert run as Console, and its transforms. */
const SEATUNNEL_PLUGINS = new Set(
  [
    'FakeSource',
    'Console',
    'Assert',
    'Sql',
    'Filter',
    'FieldMapper',
    'Replace',
    'Copy',
    'Split',
    'FilterRowKind',
    'RowKindExtractor',
    'JsonPath',
  ].map((p) => p.toLowerCase()),
);

interface DiffCase {
  readonly file: string;
  readonly path: string;
  readonly args: string[];
}

/** Every config both engines can run here: batch, no engine settings, no fixtures, known plugins. */
function differentialCases(dir: string): DiffCase[] {
  const all: DiffCase[] = [];
  const add = (cases: ManifestCase[], folder: string) => {
    for (const c of cases) {
      if (c.expect === 'streaming' || c.expect.startsWith('unsupported') || c.args.includes('--set') || c.setup !== '') continue;
      const path = join(folder, c.file);
      let job: JobConfig;
      try {
        job = parseJobConfig(readFileSync(path, 'utf8'), { file: path, variables: Object.fromEntries(variablesOf(c.args)) });
      } catch {
        continue;
      }
      const plugins = [...job.sources, ...job.transforms, ...job.sinks];
      if (!plugins.every((p) => SEATUNNEL_PLUGINS.has(p.name.toLowerCase()))) continue;
      all.push({ file: c.file, path, args: c.args });
    }
  };
  add(readManifest(join(dir, 'MANIFEST.tsv')), join(dir, 'cases'));
  add(readManifest(join(repoRoot, 'test', 'conformance', 'seatunnel-extra', 'MANIFEST.tsv')), join(dir, 'extra', 'configs'));
  return all;
}

describe.skipIf(home === undefined)('SeaTunnel, the oracle', () => {
  let cluster: SeaTunnelCluster;
  let work: string;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'tideway-seatunnel-test-'));
    cluster = await SeaTunnelCluster.start(home!);
  }, 240_000);

  afterAll(async () => {
    await cluster?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  function write(name: string, text: string): string {
    const path = join(work, name);
    writeFileSync(path, text);
    return path;
  }

  it('runs FakeSource -> Console in local mode', async () => {
    const conf = write(
      'fake-console.conf',
      `env { parallelism = 1
  job.mode = "BATCH" }
source { FakeSource { rows = [ { kind = INSERT, fields = [1, "a"] }, { kind = DELETE, fields = [2, "b"] } ]
  schema = { fields { id = "int", name = "string" } } } }
sink { Console {} }
`,
    );
    const run = await runSeaTunnelLocal(home!, conf);
    expect(run.exitCode, run.output.slice(-3000)).toBe(0);
    expect(run.consoleLines).toEqual([
      'subtaskIndex=0  rowIndex=1:  SeaTunnelRow#tableId=default.default.default SeaTunnelRow#kind=INSERT : 1, a',
      'subtaskIndex=0  rowIndex=2:  SeaTunnelRow#tableId=default.default.default SeaTunnelRow#kind=DELETE : 2, b',
    ]);
  }, 240_000);

  it('runs FakeSource -> LocalFile on the cluster', async () => {
    const out = join(work, 'localfile-out');
    const conf = write(
      'fake-localfile.conf',
      `env { parallelism = 1
  job.mode = "BATCH" }
source { FakeSource { row.num = 25
  schema = { fields { id = "bigint", name = "string" } } } }
sink { LocalFile { path = "${out}", file_format_type = "text", field_delimiter = "," } }
`,
    );
    const run = await cluster.run(conf);
    expect(run.exitCode, run.output.slice(-3000)).toBe(0);
    const rows = readdirSync(out, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .flatMap((e) => readFileSync(join(e.parentPath, e.name), 'utf8').split('\n').filter(Boolean));
    expect(rows).toHaveLength(25);
    for (const row of rows) expect(row).toMatch(/^-?\d+,[A-Za-z]+$/);
  }, 240_000);

  // Its REST answers against Tideway's, on the same cluster (docs/rest-api.md).
  restAnswersFieldByField(() => cluster);

  // Three at a time: most of a case is its two engines' processes starting.
  const threeAtATime = atMost(3);

  describe('Sql transform functions: the sweep on both engines', () => {
    // The whole sweep: every call; the suite's sample: each documented function's first call.
    const calls = sweepCalls(all ? 'all' : 'sample');
    // Calls that fail on an engine (docs/seatunnel-differences.md) run alone, the others in batches.
    const batches = [
      ...sweepBatches(
        calls.filter((c) => !c.alone),
        40,
      ),
      ...calls.filter((c) => c.alone).map((c) => [c]),
    ];
    it.concurrent.for(batches.map((b, i) => ({ name: `${i + 1}: ${describeBatch(b)}`, batch: b })))(
      'batch $name',
      { timeout: 900_000 },
      async ({ batch }) => {
        const outcome = await sweep(batch, sweepRunner(cluster, work, threeAtATime));
        const unexplained = outcome.diffs.filter((d) => !KNOWN_SWEEP_DIFFERENCES.some((k) => k.pattern.test(d)));
        expect(unexplained, `jobs run: ${outcome.jobs}`).toEqual([]);
      },
    );
  });

  describe.skipIf(shared === undefined)('differential: the same configs on both engines', () => {
    const cases = shared === undefined ? [] : differentialCases(shared);
    const chosen = all ? cases : cases.filter((c) => SAMPLE.includes(c.file));
    if (shared !== undefined && !all) {
      it('has every sample config', () => expect(chosen.map((c) => c.file).sort()).toEqual([...SAMPLE].sort()));
    }
    // Configs with random rows run a second time as a copy with explicit rows, compared on values.
    const withCopies = chosen.flatMap((c) => [
      { ...c, copy: false },
      ...(all || ROWS_COPY_SAMPLE.includes(c.file) ? [{ ...c, copy: true }] : []),
    ]);
    it.concurrent.for(withCopies)('$file (explicit rows: $copy)', { timeout: 600_000 }, async (c, ctx) => {
      const variables = Object.fromEntries(variablesOf(c.args));
      const path = c.copy ? await explicitRowsCopy(c.path, work, variables) : c.path;
      if (path === undefined) {
        ctx.skip('its FakeSources list their rows already');
        return;
      }
      const d = await threeAtATime(() => runBoth(cluster, path, work, { variables, mask: RANDOM_COLUMNS[c.file] }));
      // Not comparable: SeaTunnel's release has no such plugin or function (docs/seatunnel-differences.md).
      if (d.seatunnelLacks !== undefined) {
        if (SAMPLE.includes(c.file)) throw new Error(`SeaTunnel ${SEATUNNEL_VERSION} lacks ${d.seatunnelLacks}: not a sample config`);
        ctx.skip(`SeaTunnel ${SEATUNNEL_VERSION} lacks ${d.seatunnelLacks}`);
        return;
      }
      const context = `compared on ${d.by}\nTideway:\n${d.tideway.output.slice(-2000)}\nSeaTunnel:\n${d.seatunnel.run.output.slice(-2000)}`;
      // A config both engines fail (a value that cannot be cast) is compared on the exit codes and
      // the rows printed before the failure; the others must have printed rows.
      // (A filter that keeps no row is seen in both engines' statistics.)
      if (d.tideway.code === 0 && !(d.written?.tideway === 0 && d.written.seatunnel === 0))
        expect(d.tideway.rows.length + d.seatunnel.rows.length, `no rows printed; ${context}`).toBeGreaterThan(0);
      const known = c.copy ? KNOWN_COPY_DIFFERENCES[c.file] : KNOWN_DIFFERENCES[c.file];
      if (known !== undefined && d.diffs.length > 0) {
        // A difference docs/seatunnel-differences.md explains: every line of it must be of that kind.
        for (const diff of d.diffs) expect(diff, `${known.doc}\n${context}`).toMatch(known.pattern);
        return;
      }
      expect(d.diffs, context).toEqual([]);
    });
  });
});
