/**
 * `format = avro` against SeaTunnel itself (scripts/ensure-seatunnel.sh): the same FakeSource rows
 * (every type SeaTunnel's avro format has, a nested row included) written to Kafka by SeaTunnel
 * and by Tideway give the same bytes, record by record; Tideway's Kafka source reads SeaTunnel's
 * records back into the values written.
 */
import { join } from 'node:path';
import { kafkaSkipped, runSeaTunnelLocal, seaTunnelHome, sharedKafka } from '@tideway/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../conformance/cli-process.js';
import { consumeRaw, createTopic, outputLines, TempDirs, uniqueTopic, writeJob } from './kafka-helpers.js';

const dirs = new TempDirs();
afterAll(() => dirs.cleanup());

const FIELDS = `c_map = "map<string, string>"
        c_array = "array<int>"
        c_string = string
        c_boolean = boolean
        c_tinyint = tinyint
        c_smallint = smallint
        c_int = int
        c_bigint = bigint
        c_float = float
        c_double = double
        c_bytes = bytes
        c_date = date
        c_decimal = "decimal(38, 18)"
        c_timestamp = timestamp`;

/** Rows with edge values: negatives, a 64-bit long, sub-millisecond and pre-1970 timestamps, an empty map and array. */
const ROWS = [
  `[{"a": "b"}, [1, 2, 3], "fake_source_avro", true, 1, 2, 3, 9007199254740993, 1.5, 2.25, "dGVzdA==", "2024-01-01", "1.1", "2024-01-01T12:59:23.123", [{"k": "v"}, [4], "inner", false, -1, -2, -3, -4, -1.5, -2.25, "AAE=", "1969-12-31", "-0.000000000000000001", "1969-12-31T23:59:59.999"]]`,
  `[{}, [], "", false, -128, -32768, -2147483648, -9223372036854775808, 0.0, 0.0, "", "1970-01-01", "-99999999999999999999.999999999999999999", "1970-01-01T00:00:00", [{}, [], "x", true, 127, 32767, 2147483647, 9223372036854775807, 3.4028235E38, 1.7976931348623157E308, "/w==", "9999-12-31", "99999999999999999999.999999999999999999", "2999-12-31T23:59:59"]]`,
];

function job(bootstrap: string, topic: string): string {
  return `env {
  parallelism = 1
  job.mode = "BATCH"
}
source {
  FakeSource {
    plugin_output = "fake"
    schema = {
      fields {
        ${FIELDS}
        c_row = {
          ${FIELDS}
        }
      }
    }
    rows = [
${ROWS.map((r) => `      { kind = INSERT, fields = ${r} }`).join('\n')}
    ]
  }
}
sink {
  Kafka {
    plugin_input = "fake"
    bootstrap.servers = "${bootstrap}"
    topic = "${topic}"
    format = avro
  }
}
`;
}

/** Every record value of a one-partition topic, in order (the topic holds exactly `count`). */
async function values(bootstrap: string, topic: string, count: number): Promise<Buffer[]> {
  const got = await consumeRaw(bootstrap, topic, count + 1, 5_000);
  expect(got).toHaveLength(count);
  return got.map((m) => m.value);
}

const home = seaTunnelHome();

describe.skipIf(kafkaSkipped() || home === undefined)('Kafka format avro against SeaTunnel', () => {
  let bootstrap = '';
  beforeAll(async () => {
    bootstrap = await sharedKafka();
  }, 200_000);

  it("SeaTunnel and Tideway write the same bytes for the same rows, and Tideway reads SeaTunnel's", async () => {
    const theirs = uniqueTopic('avro-seatunnel');
    const ours = uniqueTopic('avro-tideway');
    await createTopic(bootstrap, theirs, 1);
    await createTopic(bootstrap, ours, 1);
    const st = await runSeaTunnelLocal(home!, writeJob(dirs.make(), job(bootstrap, theirs)), { timeoutMs: 240_000 });
    expect(st.exitCode, st.output.slice(-3000)).toBe(0);
    const tw = await runCli(['run', '-c', writeJob(dirs.make(), job(bootstrap, ours))], 120_000);
    expect(tw.code, tw.stderr).toBe(0);
    const a = await values(bootstrap, theirs, ROWS.length);
    const b = await values(bootstrap, ours, ROWS.length);
    expect(b.map((v) => v.toString('hex'))).toEqual(a.map((v) => v.toString('hex')));

    const out = join(dirs.make(), 'out');
    const read = await runCli(
      [
        'run',
        '-c',
        writeJob(
          dirs.make(),
          `env {
  parallelism = 1
  job.mode = "BATCH"
}
source {
  Kafka {
    plugin_output = "k"
    bootstrap.servers = "${bootstrap}"
    topic = "${theirs}"
    start_mode = earliest
    format = avro
    schema = { fields {
        ${FIELDS}
        c_row = {
          ${FIELDS}
        }
    } }
  }
}
sink {
  LocalFile {
    plugin_input = "k"
    path = "${out}"
    file_format_type = "json"
  }
}
`,
        ),
      ],
      120_000,
    );
    expect(read.code, read.stderr).toBe(0);
    const rows = outputLines(out).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(rows).toHaveLength(2);
    const first = rows.find((r) => r.c_string === 'fake_source_avro')!;
    expect(first).toMatchObject({
      c_map: { a: 'b' },
      c_array: [1, 2, 3],
      c_boolean: true,
      c_date: '2024-01-01',
      c_timestamp: '2024-01-01T12:59:23.123',
    });
    // 2^53 + 1 as written (JSON.parse above would round it).
    expect(outputLines(out).some((l) => l.includes('"c_bigint":9007199254740993'))).toBe(true);
    expect(String(first.c_decimal)).toMatch(/^1\.10*$/);
    expect((first.c_row as Record<string, unknown>).c_timestamp).toBe('1969-12-31T23:59:59.999');
    expect(Number((first.c_row as Record<string, unknown>).c_decimal)).toBe(-1e-18);
  }, 400_000);
});
