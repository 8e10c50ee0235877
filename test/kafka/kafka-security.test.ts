/**
 * SASL (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512) and TLS (a private CA, client certificates) against
 * the shared broker's secure listeners, through SeaTunnel's kafka.config keys as its docs write
 * them: sinks of every kind (EXACTLY_ONCE's transactions included) write over them, a source reads
 * over SASL_SSL, and a wrong password or a missing client certificate fails the job in one
 * sentence naming the broker.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { KAFKA_TEST_USER, type KafkaSecurity, kafkaSkipped, sharedKafka, sharedKafkaSecurity } from '@tideway/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../conformance/cli-process.js';
import { consumeAll, createTopic, outputLines, readCommitted, TempDirs, uniqueTopic, writeJob } from './kafka-helpers.js';

const dirs = new TempDirs();
afterAll(() => dirs.cleanup());

const ROWS = 120;
const jaas = (module: 'plain' | 'scram', password: string = KAFKA_TEST_USER.password) =>
  `"org.apache.kafka.common.security.${module}.${module === 'plain' ? 'PlainLoginModule' : 'ScramLoginModule'} required username=\\"${KAFKA_TEST_USER.username}\\" password=\\"${password}\\";"`;

describe.skipIf(kafkaSkipped())('Kafka over SASL and TLS', () => {
  let bootstrap = '';
  let sec: KafkaSecurity;
  let pemKeystore = '';
  beforeAll(async () => {
    bootstrap = await sharedKafka();
    sec = await sharedKafkaSecurity();
    // Kafka's PEM keystore: the private key and its certificate chain in one file.
    pemKeystore = join(dirs.make(), 'client-keystore.pem');
    writeFileSync(pemKeystore, readFileSync(sec.clientKeyFile, 'utf8') + readFileSync(sec.clientCertFile, 'utf8'));
  }, 200_000);

  it('sinks write over SASL_PLAINTEXT (PLAIN, SCRAM-SHA-256), SASL_SSL (SCRAM-SHA-512, EXACTLY_ONCE) and SSL (PKCS12 and PEM client certificates); a source reads over SASL_SSL', async () => {
    const sinks = [
      {
        topic: uniqueTopic('sec-plain'),
        address: sec.saslPlaintext,
        config: `security.protocol = SASL_PLAINTEXT\n        sasl.mechanism = PLAIN\n        sasl.jaas.config = ${jaas('plain')}`,
      },
      {
        topic: uniqueTopic('sec-scram256'),
        address: sec.saslPlaintext,
        config: `security.protocol = SASL_PLAINTEXT\n        sasl.mechanism = SCRAM-SHA-256\n        sasl.jaas.config = ${jaas('scram')}`,
      },
      {
        topic: uniqueTopic('sec-scram512-eos'),
        address: sec.saslSsl,
        semantics: 'EXACTLY_ONCE',
        config: `security.protocol = SASL_SSL\n        sasl.mechanism = SCRAM-SHA-512\n        sasl.jaas.config = ${jaas('scram')}\n        ssl.truststore.type = PEM\n        ssl.truststore.location = "${sec.caFile}"`,
      },
      {
        topic: uniqueTopic('sec-ssl-p12'),
        address: sec.ssl,
        config: `security.protocol = SSL\n        ssl.truststore.type = PEM\n        ssl.truststore.location = "${sec.caFile}"\n        ssl.keystore.type = PKCS12\n        ssl.keystore.location = "${sec.clientKeystoreFile}"\n        ssl.keystore.password = "${sec.keystorePassword}"`,
      },
      {
        // localhost is in the broker's certificate; with the check off, the address's name is not looked at.
        topic: uniqueTopic('sec-ssl-pem'),
        address: sec.ssl,
        config: `security.protocol = SSL\n        ssl.truststore.type = PEM\n        ssl.truststore.location = "${sec.caFile}"\n        ssl.keystore.type = PEM\n        ssl.keystore.location = "${pemKeystore}"\n        ssl.endpoint.identification.algorithm = ""`,
      },
    ];
    for (const s of sinks) await createTopic(bootstrap, s.topic, 1);
    const dir = dirs.make();
    const conf = writeJob(
      dir,
      `env {
  parallelism = 1
  job.mode = "BATCH"
  checkpoint.interval = 2000
}
source {
  Sequence {
    plugin_output = "seq"
    keys = 2
    rows.per.key = ${ROWS / 2}
  }
}
sink {
${sinks
  .map(
    (s) => `  Kafka {
    plugin_input = "seq"
    bootstrap.servers = "${s.address}"
    topic = "${s.topic}"
    format = json
    semantics = ${s.semantics ?? 'AT_LEAST_ONCE'}${s.semantics === 'EXACTLY_ONCE' ? `\n    transaction_prefix = "${s.topic}"` : ''}
    kafka.config = {
        ${s.config}
    }
  }`,
  )
  .join('\n')}
}
`,
    );
    const res = await runCli(['run', '-c', conf], 150_000);
    expect(res.code, res.stderr).toBe(0);
    for (const s of sinks) {
      const values =
        s.semantics === 'EXACTLY_ONCE'
          ? await readCommitted(bootstrap, s.topic)
          : (await consumeAll(bootstrap, s.topic, ROWS)).map((m) => m.value);
      expect(values, s.topic).toHaveLength(ROWS);
      expect(
        new Set(values.map((v) => JSON.stringify([(JSON.parse(v) as { key: number }).key, (JSON.parse(v) as { seq: number }).seq]))).size,
      ).toBe(ROWS);
    }

    // The EXACTLY_ONCE topic read back over SASL_SSL (its group's offsets committed over it too).
    const out = join(dirs.make(), 'out');
    const readConf = writeJob(
      dirs.make(),
      `env {
  parallelism = 1
  job.mode = "BATCH"
}
source {
  Kafka {
    plugin_output = "k"
    bootstrap.servers = "${sec.saslSsl}"
    topic = "${sinks[2].topic}"
    consumer.group = "${sinks[2].topic}-reader"
    start_mode = earliest
    format = json
    schema = { fields { key = int, seq = bigint, payload = string } }
    kafka.config = {
        security.protocol = SASL_SSL
        sasl.mechanism = SCRAM-SHA-512
        sasl.jaas.config = ${jaas('scram')}
        ssl.truststore.type = PEM
        ssl.truststore.location = "${sec.caFile}"
    }
  }
}
sink {
  LocalFile {
    plugin_input = "k"
    path = "${out}"
    file_format_type = "text"
    field_delimiter = ","
  }
}
`,
    );
    const read = await runCli(['run', '-c', readConf], 150_000);
    expect(read.code, read.stderr).toBe(0);
    const lines = outputLines(out);
    expect(lines).toHaveLength(ROWS);
    expect(new Set(lines.map((l) => l.split(',').slice(0, 2).join(','))).size).toBe(ROWS);
  }, 300_000);

  it('a wrong password and a missing client certificate fail the job in one sentence naming the broker', async () => {
    const topic = uniqueTopic('sec-refused');
    await createTopic(bootstrap, topic, 1);
    const cases = [
      {
        address: sec.saslPlaintext,
        config: `security.protocol = SASL_PLAINTEXT\n        sasl.mechanism = SCRAM-SHA-256\n        sasl.jaas.config = ${jaas('scram', 'not-the-password')}`,
        says: /failed while reading the metadata of topic .*SASL authentication failed/,
      },
      {
        address: sec.ssl,
        config: `security.protocol = SSL\n        ssl.truststore.type = PEM\n        ssl.truststore.location = "${sec.caFile}"`,
        // TLS 1.3: the broker checks the client's certificate after the handshake and closes the connection.
        says: /could not be reached within 5000 ms \(reading the metadata of topic [^:]+: Connection closed/,
      },
    ];
    for (const c of cases) {
      const conf = writeJob(
        dirs.make(),
        `env {
  parallelism = 1
  job.mode = "BATCH"
  job.retry.times = 0
}
source { Sequence { plugin_output = "seq", keys = 1, rows.per.key = 5 } }
sink {
  Kafka {
    plugin_input = "seq"
    bootstrap.servers = "${c.address}"
    topic = "${topic}"
    format = json
    kafka.config = {
        ${c.config}
        socket.connection.setup.timeout.ms = 5000
    }
  }
}
`,
      );
      const res = await runCli(['run', '-c', conf], 120_000);
      expect(res.code, res.stderr).not.toBe(0);
      expect(res.stderr).toContain(`Kafka at ${c.address}`);
      expect(res.stderr).toMatch(c.says);
    }
    expect(await consumeAll(bootstrap, topic, 1, 3_000)).toEqual([]);
  }, 300_000);
});
