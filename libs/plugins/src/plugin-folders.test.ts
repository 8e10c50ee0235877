import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PLUGIN_API_VERSION } from '@tideway/api';
import { ConfigError, ErrorCode } from '@tideway/common';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { INSTALL_ROOT, loadPluginsFor, pluginCatalog, usePluginDirs } from './catalog.js';

let root: string;

/** A plugin package folder: its package.json (with `tideway` unless given) and its module text. */
function writePackage(name: string, manifest: Record<string, unknown>, code?: string): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version: '1.0.0', type: 'module', exports: './index.js', ...manifest }));
  if (code !== undefined) writeFileSync(join(dir, 'index.js'), code);
  return dir;
}

const sinkCode = (exportName: string, pluginName: string) =>
  `export const ${exportName} = { type: 'sink', name: '${pluginName}', description: 'test', spec: { options: [] }, create: () => ({ createWriter: () => ({ write() {}, close() {} }) }) };\n`;

const declaring = (plugins: unknown[], api = `^${PLUGIN_API_VERSION}`) => ({ tideway: { api, plugins } });

/** The ConfigError a call throws (the test fails when it throws none or something else). */
function refusal(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error('expected a refusal');
}

async function refusalOf(p: Promise<unknown>): Promise<ConfigError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ConfigError);
  return err as ConfigError;
}

describe('plugin folders (tideway.plugins.dirs)', () => {
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'tideway-plugins-'));
  });
  afterEach(() => {
    usePluginDirs([]);
    delete process.env.TIDEWAY_PLUGIN_DIRS;
    rmSync(root, { recursive: true, force: true });
  });

  it('finds a package by its declaration and loads its code only when a job names its plugin', async () => {
    writePackage(
      'good-sink',
      declaring([{ name: 'GoodSink', kind: 'sink', factory: 'goodSinkFactory' }]),
      sinkCode('goodSinkFactory', 'GoodSink'),
    );
    // A second package whose module would fail to load: it is never imported, as no job names it.
    writePackage(
      'unused',
      declaring([{ name: 'Unused', kind: 'source', factory: 'f' }]),
      "throw new Error('loaded although no job names it');\n",
    );
    const packages = usePluginDirs([root]);
    expect(packages.map((p) => p.name)).toEqual(['good-sink', 'unused']);
    expect(
      pluginCatalog()
        .filter((e) => !e.builtin)
        .map((e) => `${e.type} ${e.name} ${e.package}`),
    ).toEqual(['sink GoodSink good-sink', 'source Unused unused']);
    const registry = await loadPluginsFor([{ type: 'sink', name: 'goodsink' }]);
    expect(registry.get('sink', 'GoodSink').description).toBe('test');
    // A thread started later (it inherits the environment) sees the same folders.
    expect(JSON.parse(process.env.TIDEWAY_PLUGIN_DIRS ?? '[]')).toEqual([root]);
  });

  it('refuses, naming the package, one built for another plugin API', () => {
    writePackage('old-sink', declaring([{ name: 'OldSink', kind: 'sink', factory: 'f' }], '^0.0.1'), sinkCode('f', 'OldSink'));
    const err = refusal(() => usePluginDirs([root]));
    expect(err.code).toBe(ErrorCode.PLUGIN_PACKAGE);
    expect(err.message).toBe(
      `plugin package old-sink (${join(root, 'old-sink')}): it was built for plugin API ^0.0.1, and this Tideway has API ${PLUGIN_API_VERSION}; rebuild it against @tideway/api ${PLUGIN_API_VERSION}`,
    );
  });

  it("refuses one that reuses a built-in's name, or another package's", () => {
    writePackage('my-console', declaring([{ name: 'console', kind: 'sink', factory: 'f' }]), sinkCode('f', 'console'));
    expect(refusal(() => usePluginDirs([root])).message).toMatch(
      /^plugin package my-console \(.*\): its sink console has the name of a built-in sink; give it another name$/,
    );
    rmSync(join(root, 'my-console'), { recursive: true });
    writePackage('a-sink', declaring([{ name: 'Twice', kind: 'sink', factory: 'f' }]), sinkCode('f', 'Twice'));
    writePackage('b-sink', declaring([{ name: 'twice', kind: 'sink', factory: 'f' }]), sinkCode('f', 'twice'));
    expect(refusal(() => usePluginDirs([root])).message).toMatch(
      /^plugin package b-sink \(.*\): its sink twice is also provided by plugin package a-sink;/,
    );
  });

  it('refuses a folder without a declaration, a malformed one, a missing module and a tarball', () => {
    writePackage('plain', {}, 'export {};\n');
    expect(refusal(() => usePluginDirs([root])).message).toMatch(/^plugin package plain \(.*\): its package.json declares no plugins/);
    rmSync(join(root, 'plain'), { recursive: true });
    writePackage('bad-kind', declaring([{ name: 'X', kind: 'format', factory: 'f' }]), 'export {};\n');
    expect(refusal(() => usePluginDirs([root])).message).toMatch(
      /"tideway.plugins\[0\]".kind must be one of source, sink, transform \(got "format"\)$/,
    );
    rmSync(join(root, 'bad-kind'), { recursive: true });
    writePackage('unbuilt', declaring([{ name: 'Unbuilt', kind: 'sink', factory: 'f' }]));
    expect(refusal(() => usePluginDirs([root])).message).toMatch(
      /^plugin package unbuilt \(.*\): its entry module .\/index.js does not exist \(is the package built\?\)$/,
    );
    rmSync(join(root, 'unbuilt'), { recursive: true });
    writeFileSync(join(root, 'packed-1.0.0.tgz'), '');
    expect(refusal(() => usePluginDirs([root])).message).toMatch(
      /packed-1.0.0.tgz: a packed plugin is not loaded from a tarball; unpack it/,
    );
  });

  it('refuses, at load, a module that throws, a missing factory and a factory unlike its declaration', async () => {
    writePackage(
      'throws',
      declaring([{ name: 'Throws', kind: 'sink', factory: 'f' }]),
      "throw new Error('cannot reach the licence server\\n    at somewhere');\n",
    );
    writePackage('no-factory', declaring([{ name: 'NoFactory', kind: 'sink', factory: 'noFactorySink' }]), sinkCode('other', 'NoFactory'));
    writePackage('mislabelled', declaring([{ name: 'Labelled', kind: 'source', factory: 'f' }]), sinkCode('f', 'Labelled'));
    usePluginDirs([root]);
    expect((await refusalOf(loadPluginsFor([{ type: 'sink', name: 'Throws' }]))).message).toBe(
      `plugin package throws (${join(root, 'throws')}): its module index.js does not load: cannot reach the licence server`,
    );
    expect((await refusalOf(loadPluginsFor([{ type: 'sink', name: 'NoFactory' }]))).message).toMatch(
      /^plugin package no-factory \(.*\): it does not export noFactorySink, which its package.json names as the factory of its sink NoFactory$/,
    );
    expect((await refusalOf(loadPluginsFor([{ type: 'source', name: 'Labelled' }]))).message).toMatch(
      /: its export f is the sink Labelled, and its package.json declares the source Labelled$/,
    );
  });

  it('takes relative folders beside the install; the default plugins/ may be absent, a named folder may not', () => {
    expect(usePluginDirs(['plugins'])).toEqual([]);
    const err = refusal(() => usePluginDirs(['plugins-absent-for-test']));
    expect(err.code).toBe(ErrorCode.ENGINE_CONFIG);
    expect(err.message).toBe(`tideway.plugins.dirs: the plugin folder ${join(INSTALL_ROOT, 'plugins-absent-for-test')} does not exist`);
  });
});
