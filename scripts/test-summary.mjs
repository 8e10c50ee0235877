// Prints vitest's JSON report as one plain closing line: "tests: N passed, N failed, N skipped".
// A test file that fails outside its tests (it does not load, a hook throws) has no failed test
// in the report: it counts as one failed test here, and is named above the line, so the line
// never says "0 failed" for a run that did not check everything it was asked to.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The closing line and the files that failed outside their tests, from a parsed vitest JSON
 * report. @param {any} report @returns {{ line: string, fileFailures: string[] }}
 */
export function summarize(report) {
  const fileFailures = [];
  for (const file of report.testResults ?? []) {
    if (file.status !== 'failed') continue;
    const failedInside = (file.assertionResults ?? []).some((a) => a.status === 'failed');
    if (failedInside) continue;
    const firstLine = String(file.message ?? '').split('\n')[0] || 'failed outside its tests';
    fileFailures.push(`${relative(process.cwd(), file.name)}: ${firstLine}`);
  }
  const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  const failed = (report.numFailedTests ?? 0) + fileFailures.length;
  return { line: `tests: ${report.numPassedTests ?? 0} passed, ${failed} failed, ${skipped} skipped`, fileFailures };
}

/**
 * The `count` test files that took longest, slowest first, as "  123 s  test/dir/file.test.ts":
 * the suite has a time budget (README), and this says where it goes. @param {any} report
 * @param {number} count @returns {string[]}
 */
export function slowestFiles(report, count) {
  return (report.testResults ?? [])
    .filter((f) => Number.isFinite(f.startTime) && Number.isFinite(f.endTime))
    .map((f) => ({ name: relative(process.cwd(), f.name), ms: f.endTime - f.startTime }))
    .sort((a, b) => b.ms - a.ms)
    .slice(0, count)
    .map((f) => `${String(Math.round(f.ms / 1000)).padStart(5)} s  ${f.name}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const report = JSON.parse(readFileSync(process.argv[2], 'utf8'));
  const { line, fileFailures } = summarize(report);
  const slow = slowestFiles(report, 15);
  if (slow.length > 0) console.log(`slowest test files:\n${slow.join('\n')}`);
  for (const f of fileFailures) console.log(`failed file: ${f}`);
  console.log(line);
}
