import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { FileIO } from './file-io.js';

describe("the Iceberg connector's FileIO", () => {
  it("says an S3 endpoint cannot be reached in one sentence naming Iceberg's catalog key", async () => {
    // a port just given up: nothing listens there
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as { port: number };
    await new Promise((r) => server.close(r));
    const io = new FileIO({
      's3.endpoint': `http://127.0.0.1:${port}`,
      's3.access-key-id': 'a',
      's3.secret-access-key': 'b',
      's3.path-style-access': 'true',
    });
    await expect(io.read('s3://lake/wh/db/t/metadata/v1.metadata.json')).rejects.toThrow(
      `http://127.0.0.1:${port} is unreachable (ECONNREFUSED); check s3.endpoint of iceberg.catalog.config.`,
    );
  }, 60_000);

  it('refuses a location of another scheme, naming where it came from', () => {
    expect(() => new FileIO().check('gs://b/wh', 'iceberg.catalog.config warehouse')).toThrow(
      'iceberg.catalog.config warehouse: Iceberg location gs://b/wh: the gs: scheme is not supported',
    );
    expect(() => new FileIO().check('s3a://b/wh', 'w')).not.toThrow();
    expect(() => new FileIO().check('file:/tmp/wh', 'w')).not.toThrow();
  });
});
