/**
 * XML through the LocalFile connector: Python's ElementTree (another parser) reads what Tideway
 * writes, in both of SeaTunnel's layouts, and Tideway reads a document written by hand.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { FileAggregatedCommitInfo, FileCommitInfo } from '@tideway/connector-file-common';
import type { Row, SinkAggregatedCommitter } from '@tideway/api';
import { readAll, sinkOf, tableOf } from './test-harness.js';

const root = mkdtempSync(join(tmpdir(), 'tideway-xml-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const COLUMNS: [string, string][] = [
  ['id', 'bigint'],
  ['name', 'string'],
  ['d', 'double'],
  ['at', 'timestamp'],
  ['tags', 'array<int>'],
];
const ROWS = [
  [1n, 'a <b> & "c"', 1e7, '2024-01-02T03:04:05.5', [1, 2]],
  [2n, null, 0.5, null, null],
];

async function write(dir: string, useAttr: boolean): Promise<string> {
  const sink = sinkOf(
    {
      path: dir,
      tmp_path: join(root, 'tmp'),
      file_format_type: 'xml',
      xml_use_attr_format: useAttr,
      xml_root_tag: 'ROOT',
      xml_row_tag: 'ROW',
    },
    tableOf(COLUMNS),
  );
  const writer = sink.createWriter({ subtaskIndex: 0, parallelism: 1 });
  await writer.write(ROWS.map((fields): Row => ({ kind: '+I', tableId: 'db.t', fields })));
  const info = (await writer.prepareCommit!(1)) as FileCommitInfo;
  await writer.close();
  const committer = sink.createAggregatedCommitter!() as SinkAggregatedCommitter<FileCommitInfo, FileAggregatedCommitInfo>;
  expect(await committer.commit([committer.combine([info])])).toEqual([]);
  const [file] = readdirSync(dir);
  expect(file).toMatch(/\.xml$/);
  return join(dir, file);
}

const ELEMENT_TREE = `
import json, sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
attr = sys.argv[2] == 'attr'
print(json.dumps([root.tag] + [dict(r.attrib) if attr else {c.tag: (c.text or '') for c in r} for r in root.findall('ROW')]))
`;

describe('LocalFile xml', () => {
  for (const layout of ['attr', 'element'] as const) {
    it(`writes rows ElementTree reads (${layout === 'attr' ? 'attributes' : 'child elements'}), and reads them back`, async () => {
      const dir = join(root, layout);
      const file = await write(dir, layout === 'attr');
      const parsed: unknown = JSON.parse(execFileSync('python3', ['-c', ELEMENT_TREE, file, layout], { encoding: 'utf8' }));
      expect(parsed).toEqual([
        'ROOT',
        { id: '1', name: 'a <b> & "c"', d: '1.0E7', at: '2024-01-02T03:04:05.500', tags: '[1,2]' },
        { id: '2', name: '', d: '0.5', at: '', tags: '' },
      ]);
      const { rows } = await readAll({
        path: dir,
        file_format_type: 'xml',
        xml_row_tag: 'ROW',
        xml_use_attr_format: layout === 'attr',
        schema: { fields: Object.fromEntries(COLUMNS) },
      });
      expect(rows.map((r) => r.fields)).toEqual([
        [1n, 'a <b> & "c"', 1e7, '2024-01-02T03:04:05.500', [1, 2]], // the same instant, held as the file spells it
        [2n, '', 0.5, null, null],
      ]);
    });
  }

  it('spells times as Java toString does', async () => {
    const { javaTemporalToString } = await import('../../file-common/src/xml-format.js');
    expect(
      ['2024-01-02T03:04:05.5', '2024-01-02T03:04:00', '2024-01-02T03:04:00.000001', '10:00:05.123456789'].map(javaTemporalToString),
    ).toEqual(['2024-01-02T03:04:05.500', '2024-01-02T03:04', '2024-01-02T03:04:00.000001', '10:00:05.123456789']);
  });

  it('reads a hand-written document: rows anywhere below the root, unknown fields ignored, read_columns', async () => {
    const dir = join(root, 'hand');
    mkdirSync(dir);
    writeFileSync(
      join(dir, 'h.xml'),
      '<?xml version="1.0"?>\n<RECORDS><group><RECORD><n>1</n><s>x</s><other>?</other></RECORD></group><RECORD><s>y</s><n>2</n></RECORD></RECORDS>\n',
    );
    const { rows } = await readAll({
      path: dir,
      file_format_type: 'xml',
      xml_row_tag: 'RECORD',
      xml_use_attr_format: false,
      read_columns: ['s', 'n'],
      schema: { fields: { n: 'int', s: 'string' } },
    });
    expect(rows.map((r) => r.fields)).toEqual([
      ['x', 1],
      ['y', 2],
    ]);
  });
});
