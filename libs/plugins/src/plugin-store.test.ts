import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { nativeProblem, packPackageFolder, packSource, unpackVerified } from './package-archive.js';
import { PluginStore, newestProviding, type PluginBlobs } from './plugin-store.js';

const dir = mkdtempSync(join(tmpdir(), 'tideway-plugin-store-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function writePackage(
  name: string,
  version: string,
  files: Record<string, string | Buffer> = {},
  tideway: Record<string, unknown> = {},
): string {
  const target = join(dir, `${name}-${version}-${Math.random().toString(36).slice(2)}`);
  mkdirSync(target, { recursive: true });
  writeFileSync(
    join(target, 'package.json'),
    JSON.stringify({
      name,
      version,
      type: 'module',
      exports: './index.js',
      tideway: { api: '^0.1.0', plugins: [{ name: 'S', kind: 'sink', factory: 'f' }], ...tideway },
    }),
  );
  writeFileSync(join(target, 'index.js'), 'export const f = {};\n');
  for (const [f, text] of Object.entries(files)) {
    mkdirSync(join(target, f, '..'), { recursive: true });
    writeFileSync(join(target, f), text);
  }
  return target;
}

/** A unit test's store: objects in a Map (the real ones are checkpoint storage's BlobStores). */
function memoryBlobs(): PluginBlobs & { objects: Map<string, Uint8Array> } {
  const objects = new Map<string, Uint8Array>();
  return {
    objects,
    description: 'memory',
    put: async (k, b) => void objects.set(k, b),
    get: async (k) => objects.get(k),
    list: async (p) => [...objects.keys()].filter((k) => k.startsWith(p)),
    delete: async (keys) => keys.forEach((k) => objects.delete(k)),
  };
}

/** The first bytes of a 64-bit little-endian ELF shared library for machine `machine`. */
function elf(machine: number): Buffer {
  const b = Buffer.alloc(64);
  b.write('\x7fELF', 0, 'latin1');
  b[4] = 2;
  b[5] = 1;
  b.writeUInt16LE(machine, 18);
  return b;
}

describe('package archives', () => {
  it('packs one folder to one hash, and unpacks what it packed', async () => {
    const folder = writePackage('p', '1.0.0', { 'lib/x.js': 'export const x = 1;\n' });
    const a = await packPackageFolder(folder);
    const b = await packPackageFolder(folder);
    expect(a.hash).toBe(b.hash);
    const out = await unpackVerified(a.bytes, { name: 'p', version: '1.0.0', hash: a.hash }, join(dir, 'cache'));
    expect(out).toBe(join(dir, 'cache', a.hash));
    expect(readFileSync(join(out, 'lib', 'x.js'), 'utf8')).toBe('export const x = 1;\n');
  });

  it('refuses an archive whose sha256 is not the one it was stored as, naming the package', async () => {
    const a = await packPackageFolder(writePackage('p', '2.0.0'));
    const changed = Buffer.concat([a.bytes, Buffer.from('x')]);
    await expect(unpackVerified(changed, { name: 'p', version: '2.0.0', hash: a.hash }, join(dir, 'cache'))).rejects.toThrow(
      /^plugin package p@2\.0\.0: the stored archive has sha256 [0-9a-f]{12}…, not the [0-9a-f]{12}… it was stored as/,
    );
  });

  it('takes an npm tarball as a folder', async () => {
    const a = await packPackageFolder(writePackage('p', '3.0.0'));
    const tgz = join(dir, 'p-3.0.0.tgz');
    writeFileSync(tgz, a.bytes);
    const b = await packSource(tgz);
    expect(b.pkg.name).toBe('p');
    expect(b.hash).toBe(a.hash);
  });

  it('decides native addons by their declaration and their headers', () => {
    const linuxX64 = { platform: 'linux', arch: 'x64', modules: '115' };
    expect(nativeProblem(writePackage('n', '1.0.0', { 'build/a.node': elf(0x3e) }), linuxX64)).toMatch(
      /its package\.json does not declare what it was built for/,
    );
    const declared = { native: { platform: 'linux', arch: 'x64', abi: 'napi' } };
    expect(nativeProblem(writePackage('n', '1.0.1', { 'build/a.node': elf(0x3e) }, declared), linuxX64)).toBeUndefined();
    expect(nativeProblem(writePackage('n', '1.0.2', { 'build/a.node': elf(0xb7) }, declared), linuxX64)).toBe(
      'its native addon build/a.node is built for linux/arm64, and this process runs on linux/x64 (Node ABI 115)',
    );
    expect(nativeProblem(writePackage('n', '1.0.3', { 'build/a.node': elf(0x3e) }, declared), { ...linuxX64, arch: 'arm64' })).toMatch(
      /is built for linux\/x64, and this process runs on linux\/arm64/,
    );
    const abi = { native: { platform: 'linux', arch: 'x64', abi: '108' } };
    expect(nativeProblem(writePackage('n', '1.0.4', { 'build/a.node': elf(0x3e) }, abi), linuxX64)).toMatch(/built for Node ABI 108/);
    expect(nativeProblem(writePackage('n', '1.0.5', { 'binding.gyp': '{}' }), linuxX64)).toMatch(
      /native addon to compile \(binding\.gyp\)/,
    );
  });
});

describe('the plugin store', () => {
  it('stores a package once, notes its jobs, picks the newest, and expires unused ones', async () => {
    const blobs = memoryBlobs();
    const store = new PluginStore(blobs);
    const v1 = await packPackageFolder(writePackage('m', '1.0.0'));
    const v2 = await packPackageFolder(writePackage('m', '2.0.0'));
    await store.put(v1, 1000);
    await store.put(v1, 5000);
    await store.put(v2, 2000);
    expect((await store.entry(v1.hash))?.installedAt).toBe(1000);
    expect(blobs.objects.size).toBe(4);
    expect(newestProviding(await store.list(), 'sink', 's')?.version).toBe('2.0.0');
    await store.markUsed(v1.hash, 'job-1', 3000);
    expect(await store.entry(v1.hash)).toMatchObject({ lastUsedAt: 3000, jobs: ['job-1'] });
    const ref = { name: 'm', version: '1.0.0', hash: v1.hash };
    expect(Buffer.from(await store.archive(ref)).equals(v1.bytes)).toBe(true);
    blobs.objects.set(`packages/${v1.hash}.tgz`, Buffer.from('changed'));
    await expect(store.archive(ref)).rejects.toThrow(/^plugin package m@1\.0\.0: the stored archive has sha256/);
    // v2 unused since 2000, v1 used at 3000: at 3500 with a 1000 ms expiry, v2 goes; v1 too unless a running job uses it.
    expect((await store.expire(1000, new Set([v1.hash]), 3500)).map((e) => e.version)).toEqual(['2.0.0']);
    expect((await store.expire(1000, new Set(), 4500)).map((e) => e.version)).toEqual(['1.0.0']);
    expect(blobs.objects.size).toBe(0);
  });
});
