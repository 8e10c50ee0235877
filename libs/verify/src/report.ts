import type { TableResult } from './compare-table.js';
import type { VerifyReport } from './verify-job.js';

function pad(rows: string[][]): string[] {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) =>
    r
      .map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i])))
      .join('  ')
      .trimEnd(),
  );
}

function details(t: TableResult): string[] {
  const out: string[] = [];
  if (t.problem) out.push(`  ${t.problem}`);
  for (const c of t.typeChanges) out.push(`  type  ${c}`);
  for (const k of t.keys.missing) out.push(`  missing in the sink    ${k.key}`);
  for (const k of t.keys.extra) out.push(`  extra in the sink      ${k.key}`);
  for (const k of t.keys.different) out.push(`  different              ${k.key}: ${k.columns!.join(', ')}`);
  const listed = t.keys.missing.length + t.keys.extra.length + t.keys.different.length;
  const total = t.missing + t.extra + t.different;
  if (total > listed) out.push(`  ... and ${total - listed} more (--max-keys)`);
  return out;
}

/** The summary table, then per table what differs, then the verdict. */
export function formatReport(r: VerifyReport): string {
  const lines: string[] = [];
  for (const c of r.catchUp)
    lines.push(
      `pipeline ${c.pipelineId}: source log at ${c.recorded} when verify started; checkpoint ${c.checkpointId} passed it at ${c.reached}`,
    );
  for (const k of r.throughKafka ?? [])
    lines.push(`then, pipeline ${k.pipelineId} of the second job: checkpoint ${k.checkpointId} read ${k.topics.join(', ')} to the end`);
  const rows = [['table', 'source rows', 'sink rows', 'ranges', 'differing', 'missing', 'extra', 'different', 'result']];
  for (const t of r.tables) {
    rows.push([
      `${t.sourceTable} -> ${t.sinkTable}`,
      String(t.sourceRows),
      String(t.sinkRows),
      String(t.ranges),
      String(t.differingRanges),
      String(t.missing),
      String(t.extra),
      String(t.different),
      t.equal ? 'equal' : 'NOT EQUAL',
    ]);
  }
  lines.push(...pad(rows));
  for (const t of r.tables) {
    const d = details(t);
    if (d.length > 0) lines.push('', `${t.sourceTable} -> ${t.sinkTable}:`, ...d);
  }
  lines.push(
    '',
    r.tables.length === 0
      ? 'no tables to compare'
      : r.equal
        ? `equal: ${r.tables.length} table(s)`
        : `NOT EQUAL: ${r.tables.filter((t) => !t.equal).length} of ${r.tables.length} table(s) differ`,
  );
  return lines.join('\n');
}
