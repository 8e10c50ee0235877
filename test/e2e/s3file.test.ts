/**
 * The S3File sink through the real CLI against s3rver: a Sequence source (per-key counters)
 * -> FaultInjector -> transactional S3File sink, checkpointing every 500 ms while reader and
 * chain faults restart the job from its last checkpoint; the committed objects hold every row
 * exactly once and no temp object is left. Then an S3File source reads the objects back.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { S3Location } from '@tideway/checkpoint';
import { S3BlobStore } from '@tideway/checkpoint/s3';
import { startS3rver, type TestS3Server } from '@tideway/checkpoint/testing';
import { runCli } from '../conformance/cli-process.js';
import { checkSequenceObjects } from './s3-sequence-checker.js';

const dir = mkdtempSync(join(tmpdir(), 'tideway-e2e-s3file-'));
let s3: TestS3Server;
let location: S3Location;
beforeAll(async () => {
  s3 = await startS3rver(['tideway']);
  location = {
    bucket: 'tideway',
    prefix: '',
    endpoint: s3.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    forcePathStyle: true,
  };
}, 30_000);
afterAll(async () => {
  await s3?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const s3Block = (): string => `
    bucket = "s3a://tideway"
    fs.s3a.endpoint = "${s3.endpoint}"
    fs.s3a.aws.credentials.provider = "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider"
    access_key = "${s3.accessKeyId}"
    secret_key = "${s3.secretAccessKey}"
    hadoop_s3_properties {
      "fs.s3a.path.style.access" = "true"
    }`;

describe('S3File through the CLI', () => {
  it('writes every row exactly once through injected faults, commits by copy+delete, and reads back', async () => {
    const conf = join(dir, 'job.conf');
    writeFileSync(
      conf,
      `
env {
  job.mode = "BATCH"
  parallelism = 2
  checkpoint.interval = 500
  job.retry.times = 20
  job.retry.interval.seconds = 0
}
source {
  Sequence {
    plugin_output = "seq"
    keys = 6
    rows.per.key = 3000
    rows.per.second = 4000
    fault.probability = 0.05
    fault.max = 3
    fault.dir = "${join(dir, 'reader-faults')}"
  }
}
transform {
  FaultInjector {
    plugin_input = "seq"
    plugin_output = "out"
    probability = 0.12
    max = 5
    dir = "${join(dir, 'chain-faults')}"
  }
}
sink {
  S3File {
    plugin_input = "out"
    ${s3Block()}
    path = "/e2e/out"
    tmp_path = "/e2e/tmp"
    file_format_type = "text"
    field_delimiter = ","
    is_enable_transaction = true
  }
}
`,
    );
    const res = await runCli(['run', '-c', conf], 170_000);
    expect(res.code, res.stderr).toBe(0);
    const faults = readdirSync(join(dir, 'reader-faults')).length + readdirSync(join(dir, 'chain-faults')).length;
    const report = await checkSequenceObjects(location, 'e2e/out/', 6, 3000);
    console.log(
      `S3File e2e: ${faults} faults, ${report.objects} objects; rows expected ${report.expected}, seen ${report.seen}, lost ${report.lost}, duplicated ${report.duplicated}`,
    );
    expect(faults).toBeGreaterThanOrEqual(4);
    expect(report.objects).toBeGreaterThan(2); // several checkpoints committed several objects
    expect(report, report.examples.join('; ')).toMatchObject({ lost: 0, duplicated: 0, seen: 18000 });
    const store = new S3BlobStore(location);
    try {
      expect(await store.list('e2e/tmp/')).toEqual([]); // committed temp objects deleted, aborted ones too
    } finally {
      store.close();
    }

    // The same objects through the S3File source, into a LocalFile sink.
    const readConf = join(dir, 'read.conf');
    const local = join(dir, 'readback');
    writeFileSync(
      readConf,
      `
env {
  job.mode = "BATCH"
  parallelism = 2
}
source {
  S3File {
    ${s3Block()}
    path = "/e2e/out"
    file_format_type = "text"
    field_delimiter = ","
    schema { fields { key = int, seq = bigint, payload = string } }
  }
}
sink {
  LocalFile {
    path = "${local}"
    file_format_type = "text"
    field_delimiter = ","
  }
}
`,
    );
    const read = await runCli(['run', '-c', readConf], 120_000);
    expect(read.code, read.stderr).toBe(0);
    const { checkSequenceOutput } = await import('./sequence-checker.js');
    expect(checkSequenceOutput(local, 6, 3000)).toMatchObject({ lost: 0, duplicated: 0, seen: 18000 });
  }, 300_000);

  const failing = async (name: string, options: string): Promise<string> => {
    const conf = join(dir, `${name}.conf`);
    writeFileSync(
      conf,
      `env { job.mode = "BATCH" }\nsource { S3File {\n${s3Block()}\n${options}\n    path = "/e2e/out"\n    file_format_type = "text"\n} }\nsink { Console {} }\n`,
    );
    const res = await runCli(['run', '-c', conf], 60_000);
    expect(res.code).not.toBe(0);
    return res.stderr;
  };

  it('a bad endpoint fails the job with one sentence', async () => {
    const stderr = await failing('bad-endpoint', 'fs.s3a.endpoint = "http://127.0.0.1:1"');
    expect(stderr).toMatch(
      /option 'fs.s3a.endpoint': S3File: cannot open bucket 'tideway': the S3 endpoint http:\/\/127.0.0.1:1 is unreachable \(ECONNREFUSED\); check fs.s3a.endpoint. \[TW-CONN-001\]\n/,
    );
  }, 70_000);

  it('bad credentials fail the job with one sentence', async () => {
    const stderr = await failing('bad-key', 'access_key = "NOBODY"');
    expect(stderr).toMatch(
      /option 'access_key': S3File: cannot open bucket 'tideway': http:\/\/127.0.0.1:\d+ rejected the credentials \(\w+\); check access_key, secret_key and fs.s3a.aws.credentials.provider. \[TW-CONN-001\]\n/,
    );
  }, 70_000);
});
