import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { newTableMetadata, type Snapshot, withSnapshot } from './metadata.js';
import { commitChanges, RestCatalog } from './rest-catalog.js';
import { icebergSchemaOf } from './schema.js';

const schema = icebergSchemaOf(
  [
    { name: 'id', type: { kind: 'bigint' }, nullable: false },
    { name: 'name', type: { kind: 'string' }, nullable: true },
  ],
  ['id'],
  't',
);
const base = newTableMetadata('/wh/db/t', schema, 2, { 'spec-id': 0, fields: [] }, { a: '1', gone: 'x' });
const snapshot = (id: bigint, seq: number): Snapshot => ({
  'snapshot-id': id,
  'sequence-number': seq,
  'timestamp-ms': 1_700_000_000_000 + seq,
  'manifest-list': `/wh/db/t/metadata/snap-${id}.avro`,
  summary: { operation: 'append' },
  'schema-id': 0,
});

describe('the REST commit of a new metadata version', () => {
  it('asserts the base (uuid, main ref, schema) and adds the snapshot and moves main, ids exact', () => {
    const big = 9_007_199_254_740_993n; // past 2^53
    const { requirements, updates } = commitChanges(base, withSnapshot(base, snapshot(big, 1), undefined));
    expect(requirements).toEqual([
      { type: 'assert-table-uuid', uuid: base['table-uuid'] },
      { type: 'assert-ref-snapshot-id', ref: 'main', 'snapshot-id': null },
      { type: 'assert-current-schema-id', 'current-schema-id': 0 },
    ]);
    expect(updates.map((u) => u.action)).toEqual(['add-snapshot', 'set-snapshot-ref']);
    expect(updates[1]).toEqual({ action: 'set-snapshot-ref', 'ref-name': 'main', 'snapshot-id': big, type: 'branch' });
  });

  it('asserts the parent snapshot of a second commit and carries property changes', () => {
    const first = withSnapshot(base, snapshot(11n, 1), undefined);
    const next = { ...withSnapshot(first, snapshot(12n, 2), 'm1'), properties: { a: '2', b: '3' } };
    const { requirements, updates } = commitChanges(first, next);
    expect(requirements[1]).toEqual({ type: 'assert-ref-snapshot-id', ref: 'main', 'snapshot-id': 11n });
    expect(updates).toContainEqual({ action: 'set-properties', updates: { a: '2', b: '3' } });
    expect(updates).toContainEqual({ action: 'remove-properties', removals: ['gone'] });
    expect(updates.filter((u) => u.action === 'add-snapshot')).toHaveLength(1);
  });

  it('removes the snapshots an expiry dropped (remove-snapshots, ids exact), moving no ref', () => {
    const big = 9_007_199_254_740_993n;
    const two = withSnapshot(withSnapshot(base, snapshot(big, 1), undefined), snapshot(12n, 2), 'm1');
    const { requirements, updates } = commitChanges(two, { ...two, snapshots: two.snapshots!.slice(1) });
    expect(updates).toEqual([{ action: 'remove-snapshots', 'snapshot-ids': [big] }]);
    expect(requirements.map((r) => r.type)).toEqual(['assert-table-uuid', 'assert-current-schema-id']);
  });

  it('adds a new schema with its last column id, asserting the last assigned one', () => {
    const wider = { ...schema, 'schema-id': 1, fields: [...schema.fields, { id: 3, name: 'extra', required: false, type: 'int' }] };
    const next = { ...base, schemas: [...base.schemas, wider], 'current-schema-id': 1, 'last-column-id': 3 };
    const { requirements, updates } = commitChanges(base, next);
    expect(requirements).toContainEqual({ type: 'assert-last-assigned-field-id', 'last-assigned-field-id': 2 });
    expect(updates).toEqual([
      { action: 'add-schema', schema: wider, 'last-column-id': 3 },
      { action: 'set-current-schema', 'schema-id': 1 },
    ]);
  });

  it('refuses a change it cannot express (a new partition spec)', () => {
    const next = { ...base, 'partition-specs': [...base['partition-specs'], { 'spec-id': 1, fields: [] }], 'default-spec-id': 1 };
    expect(() => commitChanges(base, next)).toThrow(/partition spec is not supported/);
  });
});

describe('the REST catalog client', () => {
  it('refuses an address that is not http(s)', () => {
    expect(() => new RestCatalog({ type: 'rest', uri: 'thrift://h:9083' })).toThrow(/uri thrift:\/\/h:9083 is not an http\(s\) address/);
  });

  it('says which address cannot be reached', async () => {
    // a port just given up: nothing listens there
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    await new Promise((r) => server.close(r));
    const c = new RestCatalog({ type: 'rest', uri: `http://127.0.0.1:${port}/` });
    await expect(c.load({ namespace: ['db'], name: 't' })).rejects.toThrow(
      `rest catalog at http://127.0.0.1:${port} cannot be reached (GET http://127.0.0.1:${port}/v1/config): ECONNREFUSED.`,
    );
  });

  it('exchanges the credential for a token, and again when the token expired (401)', async () => {
    // a hand-written server: tokens t1, t2...; only the newest is accepted
    let issued = 0;
    const seen: string[] = [];
    const server = createServer((req, res) => {
      seen.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`);
      if (req.url === '/v1/oauth/tokens') {
        issued++;
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ access_token: `t${issued}`, token_type: 'bearer' }));
      } else if (req.url?.startsWith('/v1/config')) {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"defaults":{},"overrides":{"prefix":"cat"}}');
      } else if (req.headers.authorization !== `Bearer t${issued}` || issued < 2) {
        res
          .writeHead(401, { 'content-type': 'application/json' })
          .end('{"error":{"message":"expired","type":"NotAuthorizedException","code":401}}');
      } else {
        res
          .writeHead(404, { 'content-type': 'application/json' })
          .end('{"error":{"message":"no table","type":"NoSuchTableException","code":404}}');
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const c = new RestCatalog({
        type: 'rest',
        uri: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        credential: 'id:secret',
      });
      await expect(c.load({ namespace: ['a', 'b'], name: 't' })).resolves.toBeUndefined();
      expect(issued).toBe(2);
      expect(seen.filter((l) => l.startsWith('GET /v1/cat/namespaces/a%1Fb/tables/t'))).toEqual([
        'GET /v1/cat/namespaces/a%1Fb/tables/t Bearer t1',
        'GET /v1/cat/namespaces/a%1Fb/tables/t Bearer t2',
      ]);
    } finally {
      server.close();
    }
  });
});
