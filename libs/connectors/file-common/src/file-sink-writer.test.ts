import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Row } from '@tideway/api';
import type { FileEncoder } from './file-encoder.js';
import { FileNamer } from './file-name.js';
import type { FileOutput } from './file-system.js';
import { FileSinkWriter } from './file-sink-writer.js';
import { LocalFileSystem } from './local-file-system.js';
import type { TableLayout } from './table-layout.js';

const root = mkdtempSync(join(tmpdir(), 'tideway-file-sink-writer-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** An encoder that hands each batch's rows over as one line each (a stand-in for a format). */
class LinesEncoder implements FileEncoder {
  private text = '';
  add(fields: readonly unknown[]): void {
    this.text += `${fields.join(',')}\n`;
  }
  take(): Uint8Array | undefined {
    const out = this.text === '' ? undefined : Buffer.from(this.text);
    this.text = '';
    return out;
  }
  finish(): Uint8Array | undefined {
    return this.take();
  }
}

/**
 * The local file system, whose outputs' writes are held until the test lets them go (`release`),
 * and fail from the `failAt`-th write on; `log` records when writes start and end.
 */
class HeldFileSystem extends LocalFileSystem {
  readonly log: string[] = [];
  private readonly waiting: (() => void)[] = [];
  private writes = 0;
  /** Outputs created and not closed (a leaked file handle each). */
  open = 0;

  constructor(private readonly failAt = Number.POSITIVE_INFINITY) {
    super();
  }

  override async create(path: string): Promise<FileOutput> {
    const real = await super.create(path);
    this.open++;
    return {
      write: async (chunk) => {
        const n = ++this.writes;
        this.log.push(`start ${n}`);
        await new Promise<void>((resolve) => this.waiting.push(resolve));
        if (n >= this.failAt) throw new Error(`disk full at write ${n}`);
        await real.write(chunk);
        this.log.push(`end ${n}`);
      },
      close: async () => {
        this.open--;
        await real.close();
      },
    };
  }

  /** Lets the writes waiting now go on. */
  release(): void {
    for (const go of this.waiting.splice(0)) go();
  }
}

function writerOn(fs: HeldFileSystem, dir: string): FileSinkWriter {
  const layout: TableLayout = {
    tableId: 't',
    path: join(dir, 'out'),
    format: 'text',
    suffix: '.txt',
    pick: (fields) => [...fields],
    newEncoder: () => new LinesEncoder(),
  };
  return new FileSinkWriter(
    {
      plugin: 'LocalFile',
      jobId: 'job',
      fs,
      layouts: new Map([['t', layout]]),
      namer: new FileNamer('part', 'yyyy.MM.dd', '.txt'),
      tmpPath: join(dir, 'tmp'),
      transactional: true,
      batchSize: 1_000_000,
      prefixKey: 'ab',
    },
    { subtaskIndex: 0, parallelism: 1 },
  );
}

const rows = (...ids: number[]): Row[] => ids.map((id) => ({ kind: '+I', tableId: 't', fields: [id, `v${id}`] }));

/** Resolves once `cond` holds, releasing the writes `fs` holds meanwhile. */
async function until(cond: () => boolean, fs: HeldFileSystem): Promise<void> {
  for (let i = 0; i < 500 && !cond(); i++) {
    fs.release();
    await new Promise((r) => setTimeout(r, 2));
  }
  expect(cond()).toBe(true);
}

describe('FileSinkWriter: a batch is encoded while the bytes of the one before are written', () => {
  it('returns from write() with its bytes still being written, and starts the next write only after it', async () => {
    const fs = new HeldFileSystem();
    const writer = writerOn(fs, join(root, 'a'));
    await writer.write(rows(1, 2)); // its write is started, not finished
    expect(fs.log).toEqual(['start 1']);
    const second = writer.write(rows(3));
    await new Promise((r) => setTimeout(r, 20));
    expect(fs.log).toEqual(['start 1']); // one write in flight at a time
    await until(() => fs.log.includes('start 2'), fs);
    await second;
    const prepared = writer.prepareCommit(1);
    await until(() => fs.log.includes('end 2'), fs);
    const info = await prepared;
    expect(fs.log).toEqual(['start 1', 'end 1', 'start 2', 'end 2']);
    const [[temp]] = info!.moves;
    expect(readFileSync(temp, 'utf8')).toBe('1,v1\n2,v2\n3,v3\n');
    await writer.close();
  });

  let failed = 0;
  it.each([
    ['the next write()', (w: FileSinkWriter) => w.write(rows(2))],
    ['prepareCommit when no write() came after it', (w: FileSinkWriter) => w.prepareCommit(1)],
  ])('a failed write fails %s, before anything is prepared', async (_, next) => {
    const fs = new HeldFileSystem(1);
    const writer = writerOn(fs, join(root, `failed-${++failed}`));
    await writer.write(rows(1));
    fs.release();
    await expect(next(writer)).rejects.toThrow('disk full at write 1');
    await writer.abortPrepare();
    expect(fs.open, 'files left open').toBe(0);
  });
});
