/**
 * Bad rows through `tideway run` (env.transform_error_handler, mode LOG): a table with planted
 * values that do not convert finishes with the other rows written exactly once and each bad row
 * logged; past max_error_records the job fails naming the transform's place and the row.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { JobServiceClient } from '@tideway/contracts';
import { call, channelCredentials, clientOptions } from '@tideway/rpc';
import { freePort } from '@tideway/testing';
import { runCli, spawnCli, waitForExit } from '../conformance/cli-process.js';
import { SequenceTally } from './sequence-checker.js';
import { sequenceJob } from './sequence-job.js';

const dir = mkdtempSync(join(tmpdir(), 'tideway-bad-rows-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** 40 rows; every id ending in 3 has an amount that is not a number. */
const BAD = [3, 13, 23, 33];
mkdirSync(join(dir, 'in'));
writeFileSync(
  join(dir, 'in', 'data.csv'),
  ['id,amount', ...Array.from({ length: 40 }, (_, i) => i + 1).map((id) => (BAD.includes(id) ? `${id},x${id}` : `${id},${id * 2}`))].join(
    '\n',
  ),
);

function job(name: string, maxErrorRecords: number): { conf: string; out: string } {
  const out = join(dir, `${name}-out`);
  const conf = join(dir, `${name}.conf`);
  writeFileSync(
    conf,
    `env {
  job.mode = "BATCH"
  transform_error_handler {
    mode = "LOG"
    max_error_records = ${maxErrorRecords}
    include_original_data = true
  }
}
source {
  LocalFile {
    path = "${join(dir, 'in')}"
    file_format_type = "csv"
    skip_header_row_number = 1
    schema = { fields { id = int, amount = string } }
    plugin_output = "src"
  }
}
transform {
  Sql {
    plugin_input = "src"
    plugin_output = "out"
    query = "select id, CAST(amount AS INT) as amount from src"
  }
}
sink {
  LocalFile {
    plugin_input = "out"
    path = "${out}"
    file_format_type = "csv"
  }
}
`,
  );
  return { conf, out };
}

describe('bad rows (env.transform_error_handler)', () => {
  it('mode LOG: the job finishes, every good row written once, each bad row dropped and logged', async () => {
    const { conf, out } = job('log', 5);
    const res = await runCli(['run', '-c', conf], 120_000);
    expect(res.code, res.stderr).toBe(0);
    const lines = readdirSync(out)
      .flatMap((f) => readFileSync(join(out, f), 'utf8').split('\n'))
      .filter((l) => l !== '');
    const want = Array.from({ length: 40 }, (_, i) => i + 1)
      .filter((id) => !BAD.includes(id))
      .map((id) => `${id},${id * 2}`);
    expect(lines.sort()).toEqual(want.sort());
    const dropped = res.stderr.split('\n').filter((l) => l.includes('bad row dropped'));
    expect(dropped).toHaveLength(BAD.length);
    expect(dropped[0]).toMatch(/"row":"\[3,\\"x3\\"\]".*cannot cast 'x3' to int/);
  });

  it('past max_error_records the job fails, naming the transform, its line and the row', async () => {
    const { conf } = job('limit', 3);
    const res = await runCli(['run', '-c', conf], 120_000);
    expect(res.code).toBe(1);
    // A data error: the job fails at once, no restore (it would meet the same rows again).
    expect(res.stderr).not.toMatch(/"restart":true/);
    expect(res.stderr).toMatch(
      /FAILED: 4 bad rows \(more than max_error_records = 3, env\.transform_error_handler\.mode = LOG\); the last, transform Sql \(\S+limit\.conf:19\), vertex \d+: a row of table \S+ \[33,"x33"\]: .*cannot cast 'x33' to int/,
    );
  });

  it('the bad rows of a running job are counted per vertex on the Prometheus endpoint (tideway_job_bad_rows_total) and in JobMetrics (the dashboard shows them)', async () => {
    const conf = join(dir, 'metrics.conf');
    writeFileSync(
      conf,
      `env {
  job.mode = "STREAMING"
  checkpoint.interval = 1000
  transform_error_handler { mode = "LOG", max_error_records = 1000000 }
}
source { Sequence { keys = 2, rows.per.key = 1000000, rows.per.second = 50, plugin_output = "seq" } }
transform {
  Sql {
    plugin_input = "seq"
    plugin_output = "out"
    query = "select key, CAST(CASE WHEN seq % 10 = 3 THEN 'x' ELSE '1' END AS INT) as v from seq"
  }
}
sink { Console { plugin_input = "out", log.print.data = false } }
`,
    );
    const [port, coordinatorPort] = [await freePort(), await freePort()];
    const jobId = String(Date.now());
    const child = spawnCli([
      'run',
      '-c',
      conf,
      '--metrics-port',
      String(port),
      '--coordinator-port',
      String(coordinatorPort),
      '--set-job-id',
      jobId,
    ]);
    const client = new JobServiceClient(`127.0.0.1:${coordinatorPort}`, channelCredentials(), clientOptions);
    const exited = waitForExit(child);
    try {
      const deadline = Date.now() + 90_000;
      let seen = 0;
      while (Date.now() < deadline && seen === 0) {
        const text = await fetch(`http://127.0.0.1:${port}/metrics`)
          .then((r) => r.text())
          .catch(() => '');
        for (const m of text.matchAll(/^tideway_job_bad_rows_total\{[^}]*vertex="\d+"[^}]*\} (\d+)/gm)) seen += Number(m[1]);
        if (seen === 0) await new Promise((r) => setTimeout(r, 500));
      }
      expect(seen).toBeGreaterThan(0);
      // The same counts, by vertex, in JobMetrics: the Sql transform's vertex is the one with bad rows.
      const metrics = await call(client, 'getJobMetrics', { jobId }, { deadlineMs: 10_000 });
      const byVertex = Object.entries(metrics.badRows).filter(([, n]) => Number(n) > 0);
      expect(byVertex).toHaveLength(1);
      expect(Number(byVertex[0][1])).toBeGreaterThan(0);
    } finally {
      client.close();
      child.kill('SIGINT');
      await exited;
    }
  }, 120_000);

  it('mode ROUTE: each bad row goes once to the dead-letter sink (a LocalFile folder) with its error, the rest to the sink', async () => {
    const { conf, out } = job('route', 10);
    const dead = join(dir, 'route-dead');
    writeFileSync(
      conf,
      readFileSync(conf, 'utf8').replace(
        'mode = "LOG"',
        `mode = "ROUTE"\n    sink {\n      plugin_name = "LocalFile"\n      path = "${dead}"\n      file_format_type = "json"\n    }`,
      ),
    );
    const jobId = '7701';
    const res = await runCli(['run', '-c', conf, '--set-job-id', jobId], 120_000);
    expect(res.code, res.stderr).toBe(0);
    const good = readdirSync(out)
      .flatMap((f) => readFileSync(join(out, f), 'utf8').split('\n'))
      .filter((l) => l !== '');
    expect(good).toHaveLength(40 - BAD.length);
    const routed = readdirSync(dead)
      .flatMap((f) => readFileSync(join(dead, f), 'utf8').split('\n'))
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(routed.map((r) => r.original_data).sort()).toEqual(BAD.map((id) => `[${id},"x${id}"]`).sort());
    for (const r of routed) {
      expect(r).toMatchObject({
        error_stage: 'TRANSFORM',
        plugin_type: 'TRANSFORM',
        plugin_name: 'Sql',
        job_id: Number(jobId),
        stacktrace: null,
      });
      expect(r.error_message).toMatch(/cannot cast 'x\d+' to int/);
      expect(r.exception_class).toBe('ValueConversionError[TW-DATA-001]');
      expect(String(r.source_table_path)).not.toBe('');
      expect(Date.parse(`${String(r.occur_time)}Z`)).toBeGreaterThan(Date.now() - 600_000);
    }
    expect(res.stderr.split('\n').filter((l) => l.includes('bad row routed to the dead-letter sink'))).toHaveLength(BAD.length);
  });

  it('mode ROUTE is refused at submit without a dead-letter sink, and with one whose options are wrong, naming the key and line', async () => {
    const { conf } = job('route-bad', 3);
    writeFileSync(conf, readFileSync(conf, 'utf8').replace('mode = "LOG"', 'mode = "ROUTE"'));
    let res = await runCli(['run', '-c', conf], 60_000);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/route-bad\.conf:4: env\.transform_error_handler\.mode = ROUTE needs a dead-letter sink/);
    writeFileSync(
      conf,
      readFileSync(conf, 'utf8').replace(
        'mode = "ROUTE"',
        'mode = "ROUTE"\n    sink {\n      plugin_name = "LocalFile"\n      file_format_type = "json"\n    }',
      ),
    );
    res = await runCli(['run', '-c', conf], 60_000);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/route-bad\.conf:6, plugin LocalFile, option 'path': LocalFile needs the option 'path'/);
  });

  it('mode ROUTE through injected faults and restores: every row once, the good ones in the sink, the bad ones in the dead-letter folder', async () => {
    const base = join(dir, 'route-faults');
    const [out, dead] = [join(base, 'out'), join(base, 'dead')];
    const [keys, rowsPerKey] = [4, 2000];
    const conf = join(dir, 'route-faults.conf');
    const text = sequenceJob({
      mode: 'BATCH',
      keys,
      rowsPerKey,
      rowsPerSecond: 4000,
      out,
      env: `job.retry.times = 20
  job.retry.interval.seconds = 0
  transform_error_handler {
    mode = "ROUTE"
    include_original_data = true
    sink {
      plugin_name = "LocalFile"
      path = "${dead}"
      file_format_type = "json"
      is_enable_transaction = true
    }
  }`,
      // Every seq ending in 3 does not convert; the FaultInjector behind the Sql transform fails the chain now and then.
      chain: `probability = 0.1\n    max = 6\n    dir = "${join(base, 'faults')}"`,
    }).replace(
      /transform \{\n {2}FaultInjector \{\n {4}plugin_input = "seq"/,
      `transform {
  Sql {
    plugin_input = "seq"
    plugin_output = "checked"
    query = "select key, CAST(CASE WHEN seq % 10 = 3 THEN 'x' ELSE CAST(seq AS STRING) END AS BIGINT) as seq, payload from seq"
  }
  FaultInjector {
    plugin_input = "checked"`,
    );
    expect(text).toContain('plugin_input = "checked"');
    writeFileSync(conf, text);
    const res = await runCli(['run', '-c', conf], 170_000);
    expect(res.code, res.stderr).toBe(0);
    expect(readdirSync(join(base, 'faults')).length).toBeGreaterThan(0);
    const tally = new SequenceTally();
    let routed = 0;
    for (const f of readdirSync(out, { withFileTypes: true })) if (f.isFile()) tally.addText(readFileSync(join(out, f.name), 'utf8'));
    for (const f of readdirSync(dead, { withFileTypes: true })) {
      if (!f.isFile()) continue;
      for (const line of readFileSync(join(dead, f.name), 'utf8').split('\n')) {
        if (line === '') continue;
        const [key, seq] = JSON.parse(String((JSON.parse(line) as { original_data: string }).original_data)) as [number, number];
        expect(seq % 10).toBe(3);
        tally.add(`${key},${seq}`);
        routed++;
      }
    }
    expect(routed).toBe((keys * rowsPerKey) / 10);
    const report = tally.report(keys, rowsPerKey);
    expect(report, report.examples.join('; ')).toMatchObject({ lost: 0, duplicated: 0 });
  }, 180_000);
});
