/**
 * helm and tideway-k8s-validate, built by scripts/ensure-helm.sh into the cache folder. Absent
 * outside CI, the chart tests are skipped with one line saying how to build them; in CI
 * (`CI=true`) their absence fails the file, so a green build always rendered the chart.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../conformance/conformance-files.js';

export const CHART = join(repoRoot, 'deploy', 'helm', 'tideway');
/** What the chart tests pass as the cluster's version (the chart needs 1.24 or newer). */
export const KUBE_VERSION = '1.31.0';

export interface HelmTools {
  helm: string;
  validate: string;
}

export function helmTools(): HelmTools | undefined {
  const bin = join(process.env.TIDEWAY_CACHE ?? join(homedir(), '.cache', 'tideway'), 'go-bin');
  const tools = { helm: join(bin, 'helm'), validate: join(bin, 'tideway-k8s-validate') };
  if (existsSync(tools.helm) && existsSync(tools.validate)) return tools;
  const why = `helm or tideway-k8s-validate is not in ${bin}: run bash scripts/ensure-helm.sh (scripts/test.sh does)`;
  if (process.env.CI === 'true') throw new Error(`${why} (CI=true: the chart must be checked in CI)`);
  console.log(`helm chart: skipped: ${why}`);
  return undefined;
}

/** What a finished command left. */
export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function run(command: string, args: string[], input?: string): Run {
  const r = spawnSync(command, args, { cwd: repoRoot, encoding: 'utf8', input, timeout: 60_000, maxBuffer: 64 * 1024 * 1024 });
  if (r.error) throw r.error;
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** `helm template` of the chart with these value files and --set flags (release tideway, namespace data). */
export function template(tools: HelmTools, valueFiles: string[], sets: string[] = [], extra: string[] = []): Run {
  return run(tools.helm, [
    'template',
    'tideway',
    CHART,
    '--namespace',
    'data',
    '--kube-version',
    KUBE_VERSION,
    ...valueFiles.flatMap((f) => ['-f', f]),
    ...sets.flatMap((s) => ['--set', s]),
    ...extra,
  ]);
}
