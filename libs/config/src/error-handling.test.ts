import { describe, expect, it } from 'vitest';
import { parseJobConfig, validateEnv } from './index.js';

const envOf = (body: string) => {
  const job = parseJobConfig(`env {\n${body}\n}\nsource { A {} }\nsink { B {} }`, { file: 'job.conf', env: {} });
  return () => validateEnv(job.env, job.envLines, job.file).errorHandling;
};

describe('env error handling (error_handler, transform_error_handler, sink_error_handler)', () => {
  it('defaults to DISABLE; the stage key overrides error_handler key by key', () => {
    expect(envOf('job.mode = BATCH')().transform).toMatchObject({ mode: 'DISABLE', maxErrorRecords: 0, maxErrorRatioMinRecords: 10000 });
    const h = envOf(
      'error_handler { mode = LOG, max_error_records = 7, max_error_ratio = 0.5 }\ntransform_error_handler { max_error_records = 2, include_original_data = true }\nsink_error_handler { mode = DISABLE }',
    )().transform;
    expect(h).toEqual({
      mode: 'LOG',
      maxErrorRecords: 2,
      maxErrorRatio: 0.5,
      maxErrorRatioMinRecords: 10000,
      includeOriginalData: true,
      includeStacktrace: false,
      originalDataMaxLength: 8192,
      setBy: 'env.error_handler.mode',
    });
  });

  it('mode ROUTE takes its dead-letter sink block and the queue options', () => {
    const h = envOf(
      'transform_error_handler {\n  mode = ROUTE\n  queue_capacity = 5\n  queue_overflow_policy = BLOCK\n  sink {\n    plugin_name = LocalFile\n    path = "/tmp/x"\n  }\n}',
    )().transform;
    expect(h.mode).toBe('ROUTE');
    expect(h.route).toEqual({
      sink: { plugin_name: 'LocalFile', path: '/tmp/x' },
      key: 'transform_error_handler.sink',
      queueCapacity: 5,
      queueOverflowPolicy: 'BLOCK',
    });
    // error_handler's sink serves the transform stage too; FAIL and 10000 by default
    const g = envOf('error_handler { mode = ROUTE, sink { plugin_name = Console } }\nsink_error_handler { mode = DISABLE }')().transform;
    expect(g.route).toMatchObject({ key: 'error_handler.sink', queueCapacity: 10000, queueOverflowPolicy: 'FAIL' });
  });

  it('refuses what it does not implement, naming the key and its line', () => {
    expect(envOf('transform_error_handler {\n  mode = ROUTE\n}')).toThrow(
      /^job\.conf:3: env\.transform_error_handler\.mode = ROUTE needs a dead-letter sink: add `transform_error_handler\.sink/,
    );
    expect(envOf('transform_error_handler {\n  mode = ROUTE\n  sink { path = "/x" }\n}')).toThrow(
      /env\.transform_error_handler\.sink has no plugin_name/,
    );
    // error_handler gives sinks their mode too; one dead-letter sink per job
    expect(envOf('error_handler { mode = LOG }')().sink.mode).toBe('LOG');
    expect(envOf('error_handler { mode = LOG }\nsink_error_handler { mode = DISABLE }')().transform.mode).toBe('LOG');
    expect(envOf('error_handler { mode = ROUTE, sink { plugin_name = Console } }\nsink_error_handler { mode = DISABLE }')().sink.mode).toBe(
      'DISABLE',
    );
    expect(
      envOf(
        'transform_error_handler { mode = ROUTE, sink { plugin_name = Console } }\nsink_error_handler {\n mode = ROUTE\n sink { plugin_name = LocalFile }\n}',
      ),
    ).toThrow(
      /job\.conf:5: env\.sink_error_handler\.sink is a second dead-letter sink \(the transform stage routes to transform_error_handler\.sink\)/,
    );
    expect(envOf('error_handler { sink { plugin_name = Console } }')).toThrow(
      /env\.error_handler\.sink configures mode = ROUTE, but no stage's mode is ROUTE/,
    );
    expect(envOf('transform_error_handler {\n mode = LOG\n sink { plugin_name = Jdbc }\n}')).toThrow(
      /env\.transform_error_handler\.sink configures mode = ROUTE, but the transform stage's mode is LOG/,
    );
    expect(envOf('transform_error_handler { queue_capacity = 5 }')).toThrow(
      /env\.transform_error_handler\.queue_capacity configures mode = ROUTE, but the transform stage's mode is DISABLE/,
    );
    expect(envOf('sink_error_handler { mode = DISABLE, queue_capacity = 5 }')).toThrow(
      /env\.sink_error_handler\.queue_capacity configures mode = ROUTE, but the sink stage's mode is DISABLE/,
    );
    expect(envOf('transform_error_handler { mode = SKIP }')).toThrow(/transform_error_handler\.mode/);
    expect(envOf('transform_error_handler { max_error_ratio = 2 }')).toThrow(/transform_error_handler\.max_error_ratio/);
    expect(envOf('transform_error_handler { max_errors = 2 }')).toThrow(/no option 'transform_error_handler\.max_errors'/);
  });
});
