import { readFileSync } from 'node:fs';

export { repoRoot, sharedConformanceDir } from '@tideway/testing/shared-conformance';

/** One line of a MANIFEST.tsv: a job config and what must happen when the CLI runs it. */
export interface ManifestCase {
  file: string;
  /** finished | failed:WORD | streaming | unsupported:REASON */
  expect: string;
  /** Extra CLI arguments (`-i k=v`, `--set k=v`), split on spaces. */
  args: string[];
  what: string;
  /** Optional (seatunnel-extra): `run:<file>` runs that config first; `files` lays the fixtures. */
  setup: string;
  /** Optional (seatunnel-extra): rows that must end up committed under the LocalFile sink path. */
  rows?: number;
}

/** Reads a tab-separated MANIFEST (header line first: file, expect, args, what). */
export function readManifest(path: string): ManifestCase[] {
  const lines = readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');
  const [header, ...rows] = lines;
  const cols = header.split('\t');
  const at = (name: string) => {
    const i = cols.findIndex((col) => col === name || col.startsWith(`${name} `));
    if (i < 0) throw new Error(`${path}: header has no '${name}' column`);
    return i;
  };
  const [fi, ei, ai, wi] = [at('file'), at('expect'), at('args'), at('what')];
  const [si, ri] = [cols.indexOf('setup'), cols.indexOf('rows')];
  return rows.map((line, n) => {
    const c = line.split('\t');
    if (!c[fi] || !c[ei]) throw new Error(`${path}:${n + 2}: a case needs a file and an expectation`);
    const rows = ri >= 0 && c[ri] ? Number(c[ri]) : undefined;
    return {
      file: c[fi],
      expect: c[ei],
      args: (c[ai] ?? '').split(' ').filter(Boolean),
      what: c[wi] ?? '',
      setup: si >= 0 ? (c[si] ?? '') : '',
      rows,
    };
  });
}
