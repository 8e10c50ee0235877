import { mkdtempSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { SourceReaderContext } from '@tideway/api';
import { FILE_READ_BATCH_ROWS, type FileSplit } from '@tideway/connector-file-common';
import { sharedConformanceDir } from '@tideway/testing/shared-conformance';
import { ListCollector, readAll, sourceOf } from './test-harness.js';

const root = mkdtempSync(join(tmpdir(), 'tideway-localfile-src-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('LocalFile source', () => {
  it('resumes a checkpointed split at its line offset', async () => {
    const dir = join(root, 'resume');
    mkdirSync(dir);
    const total = FILE_READ_BATCH_ROWS * 2 + 17;
    writeFileSync(join(dir, 'data.csv'), 'id,name\n' + Array.from({ length: total }, (_, i) => `${i},n${i}`).join('\r\n') + '\n');
    const options = { path: dir, file_format_type: 'csv', skip_header_row_number: 1, schema: { fields: { id: 'int', name: 'string' } } };
    const ctx = (): SourceReaderContext => ({
      subtaskIndex: 0,
      parallelism: 1,
      boundedness: 'BOUNDED',
      signalNoMoreElement: () => {},
      sendSplitRequest: () => {},
    });

    const source = sourceOf(options);
    await source.prepare!();
    const splits: FileSplit[] = [];
    const enumerator = source.createEnumerator({
      parallelism: 1,
      registeredReaders: () => [0],
      assignSplits: (_s, sp) => splits.push(...(sp as FileSplit[])),
      signalNoMoreSplits: () => {},
    });
    await enumerator.run();
    expect(splits).toEqual([{ splitId: join(dir, 'data.csv'), path: join(dir, 'data.csv'), offset: 0, partitionKeys: [] }]);
    expect(enumerator.snapshotState(1)).toEqual({ pending: [] });

    const first = source.createReader(ctx());
    first.addSplits(splits);
    const seen = new ListCollector();
    await first.pollNext(seen);
    const state = first.snapshotState(1);
    expect(state).toEqual([{ ...splits[0], offset: FILE_READ_BATCH_ROWS }]);
    await first.close();

    let done = false;
    const second = source.createReader({ ...ctx(), signalNoMoreElement: () => (done = true) });
    second.addSplits(state);
    second.handleNoMoreSplits();
    for (let i = 0; !done && i < 100; i++) await second.pollNext(seen);
    expect(done).toBe(true);
    expect(seen.rows.map((r) => r.fields[0])).toEqual(Array.from({ length: total }, (_, i) => i));
    expect(seen.rows[0]).toEqual({ kind: '+I', tableId: 'default.default.default', fields: [0, 'n0'] });
  });

  it('fills partition columns in a reader whose source was not prepared, as in a worker', async () => {
    const dir = join(root, 'partitioned');
    mkdirSync(join(dir, 'name=tyrantlucifer', 'hobby=coding'), { recursive: true });
    writeFileSync(join(dir, 'name=tyrantlucifer', 'hobby=coding', 'e2e.txt'), '1\n2\n');
    const options = { path: dir, file_format_type: 'text', schema: { fields: { id: 'int' } } };
    const planned = sourceOf(options);
    await planned.prepare!();
    expect(planned.catalogTables()[0].columns.map((c) => c.name)).toEqual(['id', 'name', 'hobby']);
    const splits: FileSplit[] = [];
    const enumerator = planned.createEnumerator({
      parallelism: 1,
      registeredReaders: () => [0],
      assignSplits: (_s, sp) => splits.push(...(sp as FileSplit[])),
      signalNoMoreSplits: () => {},
    });
    await enumerator.run();

    let done = false;
    const reader = sourceOf(options).createReader({
      subtaskIndex: 0,
      parallelism: 1,
      boundedness: 'BOUNDED',
      signalNoMoreElement: () => (done = true),
      sendSplitRequest: () => {},
    });
    reader.addSplits(splits);
    reader.handleNoMoreSplits();
    const out = new ListCollector();
    for (let i = 0; !done && i < 100; i++) await reader.pollNext(out);
    expect(out.rows.map((r) => r.fields)).toEqual([
      [1, 'tyrantlucifer', 'coding'],
      [2, 'tyrantlucifer', 'coding'],
    ]);
  });

  it('reads whole lines into `content` without a schema, skipping hidden, empty and unmatched files', async () => {
    const dir = join(root, 'plain');
    mkdirSync(join(dir, 'sub'), { recursive: true });
    writeFileSync(join(dir, 'a.txt'), 'x#1\ny#2');
    writeFileSync(join(dir, 'sub', 'b.txt'), 'z#3\n');
    writeFileSync(join(dir, 'c.log'), 'skip me');
    writeFileSync(join(dir, '.hidden.txt'), 'skip me');
    writeFileSync(join(dir, 'empty.txt'), '');
    const { rows, table } = await readAll({ path: dir, file_format_type: 'text', file_filter_pattern: '.*\\.txt' });
    expect(table.columns.map((c) => c.name)).toEqual(['content']);
    expect(rows.map((r) => r.fields)).toEqual([['x#1'], ['y#2'], ['z#3']]);
  });

  it('splits text by field_delimiter, projects read_columns, and reads quoted csv', async () => {
    const dir = join(root, 'cols');
    mkdirSync(dir);
    writeFileSync(join(dir, 'a.txt'), 'tyrantlucifer#26#male');
    const { rows, table } = await readAll({
      path: dir,
      file_format_type: 'text',
      field_delimiter: '#',
      read_columns: ['gender', 'name'],
      schema: { fields: { name: 'string', age: 'int', gender: 'string' } },
    });
    expect(table.columns.map((c) => c.name)).toEqual(['gender', 'name']);
    expect(rows.map((r) => r.fields)).toEqual([['male', 'tyrantlucifer']]);

    const csv = join(root, 'quoted');
    mkdirSync(csv);
    writeFileSync(join(csv, 'q.csv'), '"a,b",1\n"say ""hi""",2');
    const q = await readAll({ path: csv, file_format_type: 'csv', schema: { fields: { s: 'string', n: 'int' } } });
    expect(q.rows.map((r) => r.fields)).toEqual([
      ['a,b', 1],
      ['say "hi"', 2],
    ]);
  });

  it('cuts text and csv rows at row_delimiter, and refuses it where rows are not cut by a separator', async () => {
    const dir = join(root, 'rowdelim');
    mkdirSync(dir);
    writeFileSync(join(dir, 'a.txt'), 'a#1|b\nc#2|d#3|');
    const { rows } = await readAll({
      path: dir,
      file_format_type: 'text',
      field_delimiter: '#',
      row_delimiter: '|',
      schema: { fields: { s: 'string', n: 'string' } },
    });
    expect(rows.map((r) => r.fields)).toEqual([
      ['a', '1'],
      ['b\nc', '2'],
      ['d', '3'],
    ]);
    const { localFileSourceFactory } = await import('./index.js');
    const { optionsOf } = await import('@tideway/api');
    const check = (o: Record<string, unknown>) => localFileSourceFactory.spec.validate!(optionsOf(o, localFileSourceFactory.spec));
    const json = { path: dir, file_format_type: 'json', schema: { fields: { s: 'string' } } };
    expect(check({ ...json, row_delimiter: '|' })).toMatch(
      /'row_delimiter' applies to text and csv files; json files .*one object per line/,
    );
    expect(check({ ...json, row_delimiter: '\n' })).toBeUndefined();
    expect(check({ path: dir, file_format_type: 'text', row_delimiter: '' })).toMatch(/'row_delimiter' is empty/);
  });

  it('reads an empty folder as SeaTunnel does, and refuses an empty schema where there are files', async () => {
    const empty = join(root, 'empty-folder');
    mkdirSync(empty);
    const parquet = await readAll({ path: empty, file_format_type: 'parquet' });
    expect(parquet.table.columns.map((c) => [c.name, c.type.kind])).toEqual([['content', 'string']]);
    expect(parquet.rows).toEqual([]);
    const json = await readAll({ path: empty, file_format_type: 'json', schema: {} });
    expect(json.table.columns).toEqual([]);
    expect(json.rows).toEqual([]);
    writeFileSync(join(empty, 'a.json'), '{"a":1}\n');
    await expect(readAll({ path: empty, file_format_type: 'json', schema: {} })).rejects.toThrow(
      /schema declares no columns, and .*empty-folder holds files to read/,
    );
  });

  it('reads another encoding and names the line of a bad value', async () => {
    const dir = join(root, 'enc');
    mkdirSync(dir);
    writeFileSync(join(dir, 'a.txt'), Buffer.from('caf\xe9\u00011', 'latin1'));
    const { rows } = await readAll({
      path: dir,
      file_format_type: 'text',
      encoding: 'ISO-8859-1',
      schema: { fields: { s: 'string', n: 'int' } },
    });
    expect(rows.map((r) => r.fields)).toEqual([['café', 1]]);
    writeFileSync(join(dir, 'a.txt'), 'ok\u00011\nbad\u0001x1');
    await expect(readAll({ path: dir, file_format_type: 'text', schema: { fields: { s: 'string', n: 'int' } } })).rejects.toThrow(
      /a\.txt line 2: Field 'n': 'x1' is not a valid int/,
    );
  });

  it('reads json lines, exact bigint and decimal included', async () => {
    const dir = join(root, 'json');
    mkdirSync(dir);
    writeFileSync(
      join(dir, 'a.json'),
      '{"code": 200, "data": "get success", "success": true, "big": 12345678901234567, "dec": 1.10}\n{"code": 300, "data": "get failed", "success": false}',
    );
    const { rows } = await readAll({
      path: dir,
      file_format_type: 'json',
      schema: { fields: { code: 'int', data: 'string', success: 'boolean', big: 'bigint', dec: 'decimal(5, 2)' } },
    });
    expect(rows.map((r) => r.fields)).toEqual([
      [200, 'get success', true, 12345678901234567n, '1.10'],
      [300, 'get failed', false, null, null],
    ]);
  });
});

const shared = sharedConformanceDir();

describe.skipIf(!shared)('the conformance cases that use LocalFile', () => {
  const casesDir = shared ? join(shared, 'cases') : '';
  const cases = (shared ? readdirSync(casesDir) : []).filter((f) => /checkpoint.*localfile.*\.conf$/.test(f));

  it.each(cases)('%s: every sink option validates and the file names follow file_name_expression', async (file) => {
    const { parseJobConfig, validatePluginOptions } = await import('@tideway/config');
    const { localFileSinkFactory } = await import('./index.js');
    const { sinkOf, tableOf } = await import('./test-harness.js');
    const job = parseJobConfig(readFileSync(join(casesDir, file), 'utf8'), { file });
    const sinkConfig = job.sinks.find((s) => s.name === 'LocalFile')!;
    const options = validatePluginOptions(localFileSinkFactory.spec, sinkConfig);
    expect(localFileSinkFactory.spec.validate!(options)).toBeUndefined();
    // write into a temp folder instead of the case's /tmp/seatunnel/... path
    const out = mkdtempSync(join(root, 'case-'));
    const redirected = {
      get: (n: string) => (n === 'path' ? out : n === 'tmp_path' ? join(out, '.tmp') : options.get(n)),
      has: (n: string) => options.has(n),
      raw: options.raw,
      place: (o?: string) => options.place(o),
    };
    const sink = sinkOf(
      redirected,
      tableOf(
        [
          ['id', 'int'],
          ['name', 'string'],
          ['age', 'int'],
        ],
        'fake',
      ),
    );
    await sink.prepare?.();
    const writer = sink.createWriter({ subtaskIndex: 0, parallelism: 1 });
    await writer.write([{ kind: '+I', tableId: 'fake', fields: [1, 'a', 20] }]);
    const info = await writer.prepareCommit!(1);
    const committer = sink.createAggregatedCommitter!();
    await committer.commit([committer.combine([info])]);
    await writer.close();
    const names = readdirSync(out).filter((n) => n !== '.tmp');
    expect(names).toEqual([expect.stringMatching(/^T_job1_[0-9a-f]{10}_0_1_\d{4}\.\d{2}\.\d{2}_0\.txt$/)]);
    expect(readFileSync(join(out, names[0]), 'utf8')).toBe('1\u0001a\u000120');
  });

  it('reads several tables from one source block (tables_configs), each from its own files', async () => {
    const a = join(root, 'tables-a');
    const b = join(root, 'tables-b');
    mkdirSync(a);
    mkdirSync(b);
    writeFileSync(join(a, 'x.csv'), '1,one\n2,two\n');
    writeFileSync(join(b, 'y.json'), '{"k":"z","v":1.5}\n');
    const tables_configs = [
      { path: a, file_format_type: 'csv', schema: { table: 'db.t_a', fields: { id: 'int', name: 'string' } } },
      { path: b, file_format_type: 'json', schema: { table: 'db.t_b', fields: { k: 'string', v: 'double' } } },
    ];
    const source = sourceOf({ tables_configs });
    await source.prepare!();
    expect(source.catalogTables().map((t) => [t.tableId, t.columns.map((c) => c.name)])).toEqual([
      ['db.t_a', ['id', 'name']],
      ['db.t_b', ['k', 'v']],
    ]);
    const { rows } = await readAll({ tables_configs });
    expect(rows.map((r) => [r.tableId, r.fields])).toEqual([
      ['db.t_a', [1, 'one']],
      ['db.t_a', [2, 'two']],
      ['db.t_b', ['z', 1.5]],
    ]);
  });

  it('checks tables_configs items as it checks a single table, naming the item', async () => {
    const { localFileSourceFactory } = await import('./index.js');
    const { optionsOf } = await import('@tideway/api');
    const check = (o: Record<string, unknown>) => () => localFileSourceFactory.spec.validate!(optionsOf(o, localFileSourceFactory.spec));
    expect(check({ tables_configs: [{ path: '/x', file_format_type: 'json' }] })).toThrow(
      /tables_configs item 1: Option 'schema' is required when file_format_type is json/,
    );
    expect(check({ tables_configs: [{ path: '/x', file_format_type: 'text', pth: 1 }] })).toThrow(/unknown option 'pth'/);
    // a file sink's option in an item has no effect, as at the top level (planning warns about it)
    expect(check({ tables_configs: [{ path: '/x', file_format_type: 'text', partition_dir_expression: '${k0}' }] })()).toBeUndefined();
    expect(sourceOf({ tables_configs: [{ path: '/x', file_format_type: 'text', is_enable_transaction: true }] })).toBeDefined();
    expect(check({ path: '/x', tables_configs: [{ path: '/x', file_format_type: 'text' }] })()).toMatch(
      /'path' is not used when tables_configs is set/,
    );
    expect(check({})()).toMatch(/'path' is required \(or tables_configs\)/);
    const same = { path: '/x', file_format_type: 'text', schema: { table: 'db.same', fields: { a: 'string' } } };
    expect(() => sourceOf({ tables_configs: [same, same] })).toThrow(/two items of tables_configs name the same table db.same/);
  });
});
