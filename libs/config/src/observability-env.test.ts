import { describe, expect, it } from 'vitest';
import { parseJobConfig, validateEnv } from './index.js';

const envOf = (body: string) => {
  const job = parseJobConfig(`env {\n${body}\n}\nsource { A {} }\nsink { B {} }`, { file: 'job.conf', env: {} });
  return () => validateEnv(job.env, job.envLines, job.file);
};

describe("SeaTunnel's engine.observability env keys (live vertex and edge metrics)", () => {
  it('accepts the switch, the bucket and the retention, as HOCON paths or nested blocks', () => {
    expect(envOf('engine.observability.enabled = true\nengine.observability.bucket_ms = 2000')).not.toThrow();
    expect(envOf('engine { observability { enabled = false, retention_minutes = 10 } }')).not.toThrow();
  });

  it('refuses values out of range and the keys that insert queues Tideway does not have, naming them', () => {
    expect(envOf('engine.observability.retention_minutes = 11')).toThrow(
      "job.conf:2, option 'engine.observability.retention_minutes': env option 'engine.observability.retention_minutes' is 11, outside the range 1..10",
    );
    expect(envOf('engine.observability.bucket_ms = 10')).toThrow(/option 'engine\.observability\.bucket_ms'.* is 10/);
    expect(envOf('engine.observability.split_sink_io = true')).toThrow(
      "job.conf:2, option 'engine.observability.split_sink_io': env has no option 'engine.observability.split_sink_io'",
    );
  });
});
