/**
 * A plugin package as one archive (a gzipped tar of its folder, entries under `package/` as npm
 * packs them), named by the sha256 of its bytes: how a cluster stores and ships it
 * (docs/decisions/0085-plugin-distribution.md). Packing is deterministic (sorted entries, no
 * times or owners), so the same folder stored twice is one object.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { ConfigError, ErrorCode } from '@tideway/common';
import { extract, pack } from 'tar-stream';
import { packageError, readPluginPackage, type PluginPackage } from './packages.js';

/** The sha256 of bytes, as lower-case hex. */
export const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** Every file of a folder (symbolic links followed), relative with '/' separators, sorted. */
function filesOf(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      if (name === '.git') continue;
      const full = join(dir, name);
      const st = statSync(full);
      if (st.isDirectory()) walk(full);
      else if (st.isFile()) out.push(relative(root, full).split(sep).join('/'));
    }
  };
  walk(root);
  return out.sort();
}

/**
 * What a package folder holds, cheaply: each file's path, size and modification time. When it is
 * unchanged the folder packs to the same archive, so a coordinator need not pack it again.
 */
export function folderSignature(dir: string): string {
  return filesOf(dir)
    .map((f) => {
      const st = statSync(join(dir, f));
      return `${f}:${st.size}:${st.mtimeMs}`;
    })
    .join('\n');
}

/** Where a native addon was built for, read from its header (ELF, Mach-O, PE). */
function addonTarget(bytes: Buffer): { platform: string; arch: string } | undefined {
  if (bytes.length >= 20 && bytes[0] === 0x7f && bytes.toString('latin1', 1, 4) === 'ELF') {
    const machine = bytes[5] === 2 ? bytes.readUInt16BE(18) : bytes.readUInt16LE(18);
    const arch = { 0x3e: 'x64', 0xb7: 'arm64', 0x03: 'ia32', 0x28: 'arm', 0xf3: 'riscv64', 0x16: 's390x', 0x15: 'ppc64' }[machine];
    return { platform: 'linux', arch: arch ?? `elf-machine-${machine}` };
  }
  if (bytes.length >= 8) {
    const magic = bytes.readUInt32LE(0);
    if (magic === 0xfeedfacf || magic === 0xfeedface) {
      const cpu = bytes.readUInt32LE(4);
      return { platform: 'darwin', arch: cpu === 0x01000007 ? 'x64' : cpu === 0x0100000c ? 'arm64' : `mach-cpu-${cpu}` };
    }
    if (bytes.readUInt32BE(0) === 0xcafebabe) return { platform: 'darwin', arch: 'universal' };
  }
  if (bytes.length >= 2 && bytes.toString('latin1', 0, 2) === 'MZ') return { platform: 'win32', arch: 'unknown' };
  return undefined;
}

/** What this process runs on: a native addon must have been built for it. */
export interface NodeTarget {
  readonly platform: string;
  readonly arch: string;
  /** NODE_MODULE_VERSION (process.versions.modules): the ABI of addons that do not use Node-API. */
  readonly modules: string;
}

export const THIS_NODE: NodeTarget = { platform: process.platform, arch: process.arch, modules: process.versions.modules };

/**
 * Why a package folder cannot run on `target`, or undefined. A package with native code must
 * ship it prebuilt (`.node` files) and declare what for under `tideway.native`
 * (`{ "platform": "linux", "arch": "x64", "abi": "napi" }`, or the NODE_MODULE_VERSION as
 * `abi`); each addon's header must say the same platform and architecture. A `binding.gyp` or
 * `gypfile` without prebuilt addons would need a compiler on every worker: refused.
 */
export function nativeProblem(dir: string, target: NodeTarget = THIS_NODE): string | undefined {
  const files = filesOf(dir);
  const addons = files.filter((f) => f.endsWith('.node'));
  const gyp = files.find(
    (f) =>
      f.endsWith('binding.gyp') ||
      (f.endsWith('package.json') && (JSON.parse(readFileSync(join(dir, f), 'utf8')) as { gypfile?: unknown }).gypfile === true),
  );
  if (addons.length === 0) {
    return gyp
      ? `it has a native addon to compile (${gyp}) and no prebuilt .node file; Tideway does not build addons on workers, ship it prebuilt with "tideway.native" declared`
      : undefined;
  }
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { tideway?: { native?: Record<string, unknown> } };
  const native = manifest.tideway?.native;
  if (!native || typeof native.platform !== 'string' || typeof native.arch !== 'string' || typeof native.abi !== 'string')
    return `it has a native addon (${addons[0]}) and its package.json does not declare what it was built for ("tideway.native": { "platform", "arch", "abi" })`;
  const here = `${target.platform}/${target.arch} (Node ABI ${target.modules})`;
  if (native.platform !== target.platform || native.arch !== target.arch)
    return `its native addon ${addons[0]} is built for ${native.platform}/${native.arch}, and this process runs on ${here}`;
  if (native.abi !== 'napi' && native.abi !== target.modules)
    return `its native addon ${addons[0]} is built for Node ABI ${native.abi}, and this process runs on ${here} (an addon built with Node-API declares "abi": "napi")`;
  for (const f of addons) {
    const t = addonTarget(readFileSync(join(dir, f)));
    if (!t) return `its native addon ${f} is not a shared library this process can load`;
    if (t.platform !== target.platform || t.arch !== target.arch)
      return `its native addon ${f} is built for ${t.platform}/${t.arch}, and this process runs on ${here}`;
  }
  return undefined;
}

/** A package folder packed into its archive. */
export interface PackedPackage {
  readonly pkg: PluginPackage;
  readonly bytes: Buffer;
  readonly hash: string;
}

/** Packs a plugin package folder (checked as a plugin folder's package is) into its archive. */
export async function packPackageFolder(dir: string): Promise<PackedPackage> {
  const pkg = readPluginPackage(dir, { builtin: false, fromSource: false });
  if (!pkg) throw packageError({ dir }, 'its package.json declares no plugins');
  const tar = pack();
  const chunks: Buffer[] = [];
  tar.on('data', (c: unknown) => chunks.push(c as Buffer));
  const done = new Promise<void>((res, rej) => {
    tar.on('end', res);
    tar.on('error', rej);
  });
  for (const f of filesOf(dir)) {
    const full = join(dir, f);
    const mode = statSync(full).mode & 0o111 ? 0o755 : 0o644;
    tar.entry({ name: `package/${f}`, mode, mtime: new Date(0), uid: 0, gid: 0, uname: '', gname: '' }, readFileSync(full));
  }
  tar.finalize();
  await done;
  const bytes = gzipSync(Buffer.concat(chunks), { level: 9 });
  return { pkg, bytes, hash: sha256(bytes) };
}

/**
 * Unpacks an archive's files (entries under their first folder, as `package/` in npm's tarballs)
 * into `dest`, which must not exist. Refuses entries that would land outside it.
 */
export async function unpackArchive(bytes: Uint8Array, dest: string, what: string): Promise<void> {
  let tarBytes: Buffer;
  try {
    tarBytes = gunzipSync(bytes);
  } catch (err) {
    throw new ConfigError(ErrorCode.PLUGIN_PACKAGE, `plugin package ${what}: it is not a gzipped tar archive (${(err as Error).message})`);
  }
  const ex = extract();
  const reading = (async () => {
    for await (const entry of ex) {
      const parts = entry.header.name.split('/').filter((p) => p !== '' && p !== '.');
      const rel = parts.slice(1);
      if (parts.some((p) => p === '..'))
        throw new ConfigError(
          ErrorCode.PLUGIN_PACKAGE,
          `plugin package ${what}: its entry ${entry.header.name} points outside the package`,
        );
      const chunks: Buffer[] = [];
      for await (const c of entry) chunks.push(c as Buffer);
      if (entry.header.type !== 'file' || rel.length === 0) continue;
      const target = join(dest, ...rel);
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, Buffer.concat(chunks), { mode: (entry.header.mode ?? 0o644) & 0o755 });
    }
  })();
  ex.end(tarBytes);
  await reading;
}

/** Packs what `tideway plugins install` is given: a package folder or an npm tarball (.tgz). */
export async function packSource(source: string): Promise<PackedPackage> {
  if (!existsSync(source)) throw new ConfigError(ErrorCode.PLUGIN_PACKAGE, `plugin package ${source}: no such file or folder`);
  if (statSync(source).isDirectory()) return checked(source, await packPackageFolder(source));
  const temp = mkdtempSync(join(tmpdir(), 'tideway-plugin-'));
  try {
    const dir = join(temp, 'package');
    await unpackArchive(readFileSync(source), dir, source);
    if (!existsSync(join(dir, 'package.json')))
      throw new ConfigError(ErrorCode.PLUGIN_PACKAGE, `plugin package ${source}: the tarball holds no package.json under its first folder`);
    return checked(source, await packPackageFolder(dir));
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}

/**
 * Refuses a package whose native addons do not match what its package.json declares they were
 * built for (where they can run is each worker's check, against itself).
 */
export function checkNativeDeclared(pkg: PluginPackage, source: string): void {
  const manifest = JSON.parse(readFileSync(join(pkg.dir, 'package.json'), 'utf8')) as { tideway?: { native?: Record<string, unknown> } };
  const n = manifest.tideway?.native;
  const target = n ? { platform: String(n.platform), arch: String(n.arch), modules: String(n.abi) } : THIS_NODE;
  const problem = nativeProblem(pkg.dir, target);
  if (problem) throw packageError({ name: pkg.name, dir: source }, problem);
}

function checked(source: string, packed: PackedPackage): PackedPackage {
  checkNativeDeclared(packed.pkg, source);
  return packed;
}

/**
 * Verifies an archive against its hash and unpacks it into `<cacheDir>/<hash>` (kept there: a
 * package is unpacked once per host folder), refusing a native addon not built for this
 * process. Returns the folder.
 */
export async function unpackVerified(
  bytes: Uint8Array,
  expected: { name: string; version: string; hash: string },
  cacheDir: string,
): Promise<string> {
  const who = `${expected.name}@${expected.version}`;
  const actual = sha256(bytes);
  if (actual !== expected.hash)
    throw new ConfigError(
      ErrorCode.PLUGIN_PACKAGE,
      `plugin package ${who}: the stored archive has sha256 ${actual.slice(0, 12)}…, not the ${expected.hash.slice(0, 12)}… it was stored as (it was changed after it was stored); install it again`,
    );
  const dest = join(cacheDir, expected.hash);
  if (existsSync(join(dest, 'package.json'))) return dest;
  mkdirSync(cacheDir, { recursive: true });
  const temp = mkdtempSync(join(cacheDir, `.${expected.hash.slice(0, 12)}-`));
  try {
    await unpackArchive(bytes, temp, who);
    const problem = nativeProblem(temp);
    if (problem) throw packageError({ name: who, dir: dest }, problem);
    try {
      renameSync(temp, dest);
    } catch (err) {
      // Another process of this host unpacked the same hash meanwhile.
      if (!existsSync(join(dest, 'package.json'))) throw err;
    }
    return dest;
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}
