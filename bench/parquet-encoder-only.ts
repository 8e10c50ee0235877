/**
 * The Parquet encoder alone on the orders rows of bench/parquet.ts, rows made in memory first:
 * for profiling (node --cpu-prof) and for the encoder's own rate without the sink around it.
 *
 *   BENCH_ROWS=200000 node --import tsx --conditions=source bench/parquet-encoder-only.ts [flat|nested]
 */
import { parseDataType } from '@tideway/api';
import { newParquetEncoder, ParquetFileEncoder } from '@tideway/connector-file-common';
import { COLUMNS, orderRow } from './orders-rows.js';

const ROWS = Number(process.env.BENCH_ROWS ?? 200_000);
const which = process.argv[2] ?? 'flat';
const columns = COLUMNS.map(([name, t]) => ({ name, type: parseDataType(t), nullable: true }));
const rows = Array.from({ length: ROWS }, (_, i) => orderRow(i + 1));
const encoder = which === 'nested' ? new ParquetFileEncoder(columns, 'SNAPPY') : newParquetEncoder(columns, 'SNAPPY');
(globalThis as { gc?: () => void }).gc?.(); // the rows made above are not the encoder's garbage
const cpu0 = process.cpuUsage();
const t0 = performance.now();
let bytes = 0;
for (const r of rows) {
  encoder.add(r);
  bytes += encoder.take()?.length ?? 0;
}
bytes += (await encoder.finish())?.length ?? 0;
const secs = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(cpu0);
const cpuSecs = (cpu.user + cpu.system) / 1e6;
process.stdout.write(
  `${which}: ${ROWS} rows, ${(bytes / 1e6).toFixed(1)} MB, ${Math.round(ROWS / secs)} rows/s (wall), ${Math.round(ROWS / cpuSecs)} rows per CPU-second\n`,
);
