/**
 * More of SeaTunnel's own job configs (shared/conformance/seatunnel/extra/configs, outside the
 * repository: SeaTunnel's files from apache/seatunnel's seatunnel-e2e; only FakeSource, Console,
 * Assert, LocalFile and the transforms Tideway has), run through the real CLI in local mode.
 * The project's own MANIFEST.tsv and fixtures/fixtures.tsv stay here. MANIFEST.tsv says, per config,
 * what SeaTunnel's *IT.java that runs it expects (`source` column), with the same arguments;
 * `unsupported:<reason>` marks a feature Tideway does not have: the CLI must refuse it with one
 * clear error line, never a crash. `setup` = `run:<config>` runs another config first (the IT
 * runs them in that order: a job that reads back what the first one wrote); `files` lays the
 * data files the IT puts into its container at the same absolute paths (fixtures/fixtures.tsv,
 * fixture-makers.ts): shared extra/fixtures/<file> copied, made from them by the tools the IT
 * uses (lzop, zip, tar), or, for files the IT copies and shared/ lacks, made by another tool
 * (DuckDB's Parquet of e2e.json's rows, SheetJS's xlsx and .xls workbooks of them), written as
 * the xml configs read them (one RECORD of e2e.json's first row), or stood in for by random bytes
 * (the binary copy's picture), so Tideway's readers read files another tool wrote. What a case leaves under /tmp
 * and /seatunnel (the folders its configs name, the laid fixtures and the folders made for them)
 * is removed before and after it.
 */
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, it } from 'vitest';
import { readManifest, sharedConformanceDir, type ManifestCase } from './conformance-files.js';
import { layFixture, prepareFixtures, readFixtures } from './fixture-makers.js';
import { runCase, type CaseRun } from './case-runners.js';
import { caseFolders, inCleanFolders, removeCaseFiles } from './case-cleanup.js';
import { clearsSharedFolder, FolderLocks } from './folder-locks.js';

const dir = join(dirname(fileURLToPath(import.meta.url)), 'seatunnel-extra');
const shared = sharedConformanceDir();
const extra = shared ? join(shared, 'extra') : '';
const cases = shared ? readManifest(join(dir, 'MANIFEST.tsv')) : [];

/** Relative file arguments (e.g. --engine-config x.yaml) are files beside the MANIFEST. */
function argsOf(c: ManifestCase): string[] {
  return c.args.map((a, i) => (c.args[i - 1] === '--engine-config' && !isAbsolute(a) ? join(dir, a) : a));
}

function configPath(ref: string): string {
  return ref.startsWith('shared:') ? join(shared!, 'cases', ref.slice('shared:'.length)) : join(extra, 'configs', ref);
}

/**
 * The run a `run:<file>` setup names, with that case's own MANIFEST expectation, arguments and
 * row count, if it has one (a shared case: finished, 100 rows, as the shared suite checks it).
 */
function setupRun(ref: string): CaseRun {
  const own = cases.find((c) => c.file === ref);
  if (!own) return { config: configPath(ref), expect: 'finished', args: [], committedRows: 100 };
  return { config: configPath(ref), expect: own.expect, args: argsOf(own), committedRows: own.rows };
}

const fixtures = readFixtures(join(dir, 'fixtures', 'fixtures.tsv'));
const prepared = cases.some((c) => c.setup === 'files') ? await prepareFixtures(fixtures, join(extra, 'fixtures')) : undefined;

/** Lays the fixture files at the absolute paths the configs read; null when it worked, else why not. */
function layFixtures(): string | null {
  try {
    for (const f of fixtures) layFixture(f, join(extra, 'fixtures'), prepared?.made ?? new Map());
    return null;
  } catch (err) {
    return `cannot lay the data files SeaTunnel's IT puts into its container (${(err as Error).message.trim()})`;
  }
}

/** Whether a case reads the fixtures, itself or through the case its setup runs first. */
function needsFixtures(c: ManifestCase): boolean {
  if (c.setup === 'files') return true;
  return c.setup.startsWith('run:') && cases.find((x) => x.file === c.setup.slice('run:'.length))?.setup === 'files';
}

/** What a case may leave behind: the folders its configs (and its setup run's) name, the fixtures it had. */
function leftovers(c: ManifestCase, setup: CaseRun | undefined): string[] {
  const paths = caseFolders(readFileSync(configPath(c.file), 'utf8'), argsOf(c));
  if (setup) paths.push(...caseFolders(readFileSync(setup.config, 'utf8'), setup.args));
  if (needsFixtures(c)) paths.push(...fixtures.map((f) => f.dest));
  return paths;
}

/** Cases not run yet, by name, with the reason (printed): known gaps to mend, not expectations. */
const skipped: Record<string, string> = {};
for (const [file, reason] of Object.entries(skipped)) console.log(`conformance: skipped ${file}: ${reason}`);

// Laid once to learn whether this machine allows it (SeaTunnel's paths are absolute), then again
// before each case that reads them: every case removes what it leaves.
const needsFiles = cases.some(needsFixtures);
const fixtureProblem = needsFiles ? layFixtures() : null;
removeCaseFiles(fixtures.map((f) => f.dest));
if (fixtureProblem) {
  for (const c of cases.filter(needsFixtures)) console.log(`conformance: skipped ${c.file}: ${fixtureProblem}`);
}

// Three cases at a time (each is one CLI process, mostly waiting on its job), never two
// that write or clear the same folders (folder-locks.ts).
const locks = new FolderLocks(3);

describe.skipIf(!shared)('More SeaTunnel job configs (shared extra/), through the CLI', () => {
  afterAll(() => prepared?.dispose());
  for (const c of cases) {
    const title = `${c.file} -> ${c.expect}${c.args.length ? ` (${c.args.join(' ')})` : ''}`;
    if (skipped[c.file]) {
      it.skip(`${title}: ${skipped[c.file]}`, () => {});
      continue;
    }
    if (needsFixtures(c) && fixtureProblem) {
      it.skip(`${title}: ${fixtureProblem}`, () => {});
      continue;
    }
    it.concurrent(title, async () => {
      const setup = c.setup.startsWith('run:') ? setupRun(c.setup.slice('run:'.length)) : undefined;
      const folders = leftovers(c, setup);
      const claim = { folders, exclusive: needsFixtures(c) || folders.some(clearsSharedFolder) };
      await locks.run(claim, () =>
        inCleanFolders(folders, async () => {
          const problem = needsFixtures(c) ? layFixtures() : null;
          if (problem) throw new Error(problem);
          if (setup) await runCase(setup);
          await runCase({ config: configPath(c.file), expect: c.expect, args: argsOf(c), committedRows: c.rows });
        }),
      );
    }, 240_000);
  }
});
