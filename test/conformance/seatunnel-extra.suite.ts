/**
 * More of SeaTunnel's own job configs (shared/conformance/seatunnel/extra/configs, outside the
 * repository: SeaTunnel's files from apache/seatunnel's seatunnel-e2e; only FakeSource, Console,
 * Assert, LocalFile and the transforms Tideway has), run through the real CLI in local mode.
 * The project's own MANIFEST.tsv and fixtures/fixtures.tsv stay here. MANIFEST.tsv says, per config,
 * what SeaTunnel's *IT.java that runs it expects (`source` column), with the same arguments;
 * `unsupported:<reason>` marks a feature Tideway does not have: the CLI must refuse it with one
 * clear error line, never a crash. `setup` = `run:<config>` runs another config first (the IT
 * runs them in that order: a job that reads back what the first one wrote); `files` lays the
 * data files the IT puts into its container at the same absolute paths (fixtures/fixtures.tsv):
 * shared extra/fixtures/<file> copied, or the lzop, zip, tar and tar.gz files the IT makes from
 * them at test time, made here the same way by those command-line tools, so Tideway's readers
 * read files another tool wrote, or pseudo-random bytes standing in for a file whose content no
 * config looks at (the binary copy's picture). What a case leaves under /tmp and /seatunnel (the folders its
 * configs name, the laid fixtures and the folders made for them) is removed before and after it.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, extname, isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'vitest';
import { readManifest, sharedConformanceDir, type ManifestCase } from './conformance-files.js';
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

/**
 * fixtures.tsv: which of SeaTunnel's data files go where, and how its IT puts them there: `copy`
 * (one file as it is), `mkdir` (an empty folder; no file, written `-`) or made by a tool (`lzop`
 * of one file; a `zip`, `tar` or `tar_gz` archive holding each file listed, separated by spaces,
 * as one entry). `bytes:<n>` (no file, `-`) stands in for a file whose content no config looks
 * at: n pseudo-random bytes, every byte value among them. The binary configs copy SeaTunnel's
 * picture cat.png, which shared/ does not have, byte for byte and count its 1024-byte parts
 * (MAX_ROW 1924): 1,969,664 bytes are 1,924 parts, the last one half full.
 */
const fixtures = readFileSync(join(dir, 'fixtures', 'fixtures.tsv'), 'utf8')
  .split('\n')
  .slice(1)
  .filter(Boolean)
  .map((line) => {
    const [files, dest, madeBy] = line.split('\t');
    return { files: files.split(' '), dest, madeBy };
  });
type Fixture = (typeof fixtures)[number];

/** The command that makes `out` from `inputs` (files in its working folder), per `made by`. */
const MAKERS: Record<string, (out: string, inputs: string[]) => [string, string[]]> = {
  lzop: (out, inputs) => ['lzop', ['-q', '-o', out, ...inputs]],
  zip: (out, inputs) => ['zip', ['-q', out, ...inputs]],
  tar: (out, inputs) => ['tar', ['-cf', out, ...inputs]],
  tar_gz: (out, inputs) => ['tar', ['-czf', out, ...inputs]],
};

/** `n` bytes of a fixed xorshift sequence: the same file on every run. */
function pseudoRandomBytes(n: number): Buffer {
  if (!Number.isInteger(n) || n <= 0) throw new Error(`fixtures.tsv: bytes:${n} is not a size`);
  const out = Buffer.alloc(n);
  let x = 0x9e3779b9;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

/**
 * Makes a fixture as SeaTunnel's IT does, in a folder of its own that is removed after: each data
 * file under a name of its own with the same suffix (the IT's entries are `<random>e2e_<millis>.txt`),
 * the tool's output copied to the destination.
 */
function makeFixture(f: Fixture): void {
  if (f.madeBy.startsWith('bytes:')) return writeFileSync(f.dest, pseudoRandomBytes(Number(f.madeBy.slice('bytes:'.length))));
  const make = MAKERS[f.madeBy];
  if (!make) throw new Error(`fixtures.tsv: ${f.dest} is made by '${f.madeBy}', none of copy, ${Object.keys(MAKERS).join(', ')}`);
  const work = mkdtempSync(join(tmpdir(), 'tideway-fixture-'));
  try {
    const inputs = f.files.map((file, i) => {
      const name = `${basename(file, extname(file))}_${i + 1}${extname(file)}`;
      copyFileSync(join(extra, 'fixtures', file), join(work, name));
      return name;
    });
    const [command, args] = make(basename(f.dest), inputs);
    execFileSync(command, args, { cwd: work, stdio: ['ignore', 'ignore', 'pipe'] });
    copyFileSync(join(work, basename(f.dest)), f.dest);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Lays the fixture files at the absolute paths the configs read; null when it worked, else why not. */
function layFixtures(): string | null {
  try {
    for (const f of fixtures) {
      mkdirSync(dirname(f.dest), { recursive: true });
      if (f.madeBy === 'copy') copyFileSync(join(extra, 'fixtures', f.files[0]), f.dest);
      else if (f.madeBy === 'mkdir')
        mkdirSync(f.dest, { recursive: true }); // an empty folder (the IT's mkdir -p)
      else makeFixture(f);
    }
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
const NO_E2E_PARQUET =
  "needs SeaTunnel's connector-file-local-e2e data file parquet/e2e.parquet at /seatunnel/read/parquet/, which ../shared/conformance/seatunnel/extra/fixtures does not have yet";
const NO_E2E_EXCEL =
  "needs SeaTunnel's connector-file-local-e2e excel fixture workbooks (laid under /seatunnel/read/excel and /seatunnel/read/zip/excel), which ../shared/conformance/seatunnel/extra/fixtures does not have yet";
const NO_E2E_XML =
  "needs SeaTunnel's connector-file-local-e2e xml fixture (laid under /seatunnel/read/xml and /seatunnel/read/zip/xml), which ../shared/conformance/seatunnel/extra/fixtures does not have yet";
const skipped: Record<string, string> = {
  'connector-file-local-e2e__xml_local_file_xml_to_assert.conf': NO_E2E_XML,
  'connector-file-local-e2e__xml_local_file_zip_xml_to_assert.conf': NO_E2E_XML,
  'connector-file-local-e2e__excel_local_excel_projection_to_assert.conf': NO_E2E_EXCEL,
  'connector-file-local-e2e__excel_local_excel_to_assert.conf': NO_E2E_EXCEL,
  'connector-file-local-e2e__excel_local_filter_excel_to_assert.conf': NO_E2E_EXCEL,
  'connector-file-local-e2e__excel_local_excel_multi_zip_to_assert.conf': NO_E2E_EXCEL,
  'connector-file-local-e2e__excel_local_excel_zip_to_assert.conf': NO_E2E_EXCEL,
  'connector-file-local-e2e__excel_local_excel_to_assert_with_multipletable.conf': NO_E2E_EXCEL,

  'connector-file-local-e2e__parquet_local_file_parquet_projection_to_assert.conf': NO_E2E_PARQUET,
  'connector-file-local-e2e__parquet_local_file_parquet_to_assert.conf': NO_E2E_PARQUET,
  'connector-file-local-e2e__parquet_local_file_parquet_to_assert_with_multipletable.conf': NO_E2E_PARQUET,
};
for (const [file, reason] of Object.entries(skipped)) console.log(`conformance: skipped ${file}: ${reason}`);

// Laid once to learn whether this machine allows it (SeaTunnel's paths are absolute), then again
// before each case that reads them: every case removes what it leaves.
const needsFiles = cases.some(needsFixtures);
const fixtureProblem = needsFiles ? layFixtures() : null;
removeCaseFiles(fixtures.map((f) => f.dest));
if (fixtureProblem) {
  for (const c of cases.filter(needsFixtures)) console.log(`conformance: skipped ${c.file}: ${fixtureProblem}`);
}

// Two cases at a time (each is one CLI process; two use the 2 cores better than one), never two
// that write or clear the same folders (folder-locks.ts).
const locks = new FolderLocks(2);

describe.skipIf(!shared)('More SeaTunnel job configs (shared extra/), through the CLI', () => {
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
