/**
 * SeaTunnel's own job configs (shared/conformance/seatunnel, outside the repository) run through
 * the real CLI in local mode, one test per MANIFEST line. Pass condition: the MANIFEST's
 * expectation (see expectation.ts); the two LocalFile checkpoint cases also check that exactly
 * 100 rows end up in committed files under the sink path and none stay in transaction files.
 * What a case leaves under /tmp (the folders its config names) is removed before and after it.
 * Cases run three at a time (most of a case's time is its job waiting: checkpoint intervals,
 * FakeSource's split delays, a streaming case's seconds before Ctrl-C), never two that write or
 * clear the same folders (folder-locks.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { readManifest, sharedConformanceDir, type ManifestCase } from './conformance-files.js';
import { runCase } from './case-runners.js';
import { caseFolders, inCleanFolders } from './case-cleanup.js';
import { clearsSharedFolder, FolderLocks } from './folder-locks.js';

const dir = sharedConformanceDir();
const cases = dir ? readManifest(join(dir, 'MANIFEST.tsv')) : [];
const casePath = (c: ManifestCase) => join(dir!, 'cases', c.file);

/** Cases this suite does not run, by name, with the reason (printed, not only in the test title). */
const skipped: Record<string, string> = {
  'seatunnel-starter-e2e__batch_cancel_task_1.conf':
    'needs a running cluster for list/status/cancel: covered by the cluster suite in test/cluster',
};
for (const [file, reason] of Object.entries(skipped)) console.log(`conformance: skipped ${file}: ${reason}`);

/** Rows the LocalFile checkpoint cases' FakeSource emits (row.num = 100, parallelism 1). */
const CHECKPOINT_ROWS = 100;

const locks = new FolderLocks(3);

describe.skipIf(!dir)('SeaTunnel conformance cases (shared/), through the CLI', () => {
  for (const c of cases) {
    const title = `${c.file} -> ${c.expect}${c.args.length ? ` (${c.args.join(' ')})` : ''}`;
    if (skipped[c.file]) {
      it.skip(`${title}: ${skipped[c.file]}`, () => {});
      continue;
    }
    const text = readFileSync(casePath(c), 'utf8');
    const transactionalLocalFile = /LocalFile\s*\{/.test(text) && /is_enable_transaction\s*=\s*true/.test(text);
    if (c.expect === 'streaming' && !transactionalLocalFile)
      throw new Error(`${c.file}: this suite has no handler for this streaming case`);
    const committedRows = transactionalLocalFile ? CHECKPOINT_ROWS : undefined;
    const folders = caseFolders(text, c.args);
    const claim = { folders, exclusive: folders.some(clearsSharedFolder) };
    it.concurrent(
      title,
      () =>
        locks.run(claim, () =>
          inCleanFolders(folders, () => runCase({ config: casePath(c), expect: c.expect, args: c.args, committedRows })),
        ),
      240_000,
    );
  }
});
