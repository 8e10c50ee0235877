import type { Command } from 'commander';
import type { DescribePluginPackageResponse, ListPluginPackagesResponse, PluginPackageInfo } from '@tideway/contracts';
import { ConfigError, ErrorCode } from '@tideway/common';
import { addressOptions, alignedColumns, withClient, type AddressOpts } from './job-commands.js';
import { checkpointStorageOf, engineConfig, pluginStorageOf, usePluginFolders } from './options.js';

interface PluginsOpts extends AddressOpts {
  /** Work on this host's plugin store and folders (the engine config's), without a cluster. */
  local?: boolean;
  json?: boolean;
}

const time = (ms: number) => (ms ? new Date(ms).toISOString().replace('T', ' ').slice(0, 19) : '-');
const plugins = (p: PluginPackageInfo) => p.plugins.map((x) => `${x.kind} ${x.name}`).join(', ');

/** `name` or `name@version` (a scoped `@scope/name@1.0.0` too). */
function nameAndVersion(text: string): { name: string; version: string } {
  const at = text.lastIndexOf('@');
  if (at <= 0) return { name: text, version: '' };
  return { name: text.slice(0, at), version: text.slice(at + 1) };
}

function listText(r: ListPluginPackagesResponse): string {
  const out: string[] = [`Stored plugin packages (${r.store}):`];
  if (r.stored.length === 0) out.push('  none');
  else
    out.push(
      alignedColumns([
        ['Package', 'Version', 'Plugins', 'SHA-256', 'Installed', 'Last Used', 'Jobs'],
        ...r.stored.map((p) => [
          p.name,
          p.version,
          plugins(p),
          p.hash.slice(0, 12),
          time(p.installedAtMs),
          time(p.lastUsedMs),
          String(p.jobs.length),
        ]),
      ]),
    );
  out.push('', 'Loaded by each process:');
  out.push(
    alignedColumns([
      ['Process', 'Address', 'Packages'],
      ...r.processes.map((p) => [
        p.process,
        p.address,
        p.error
          ? `did not answer: ${p.error}`
          : p.loaded.map((l) => `${l.name}@${l.version}${l.hash ? ` (${l.hash.slice(0, 12)})` : ''}`).join(', ') || '-',
      ]),
    ]),
  );
  return `${out.join('\n')}\n`;
}

interface DescribedPlugin {
  name: string;
  kind: string;
  description: string;
  options: Array<{ name: string; type: string; required: boolean; default?: unknown; description: string }>;
}

function describeText(r: DescribePluginPackageResponse): string {
  const p = r.package!;
  const out = [
    `plugin package ${p.name}@${p.version}`,
    `  sha256      ${p.hash}`,
    `  plugin API  ${p.api}`,
    `  size        ${p.size} bytes`,
    `  installed   ${time(p.installedAtMs)}`,
    `  last used   ${time(p.lastUsedMs)}`,
    `  jobs        ${p.jobs.join(', ') || '-'}`,
  ];
  for (const d of JSON.parse(r.pluginsJson) as DescribedPlugin[]) {
    out.push('', `${d.kind} ${d.name}: ${d.description.split('\n')[0]}`);
    if (d.options.length === 0) out.push('  (no options)');
    else
      out.push(
        alignedColumns(
          d.options.map((o) => [
            `  ${o.name}`,
            o.type,
            o.required ? 'required' : o.default !== undefined ? `default ${JSON.stringify(o.default)}` : 'optional',
            o.description,
          ]),
        ),
      );
  }
  return `${out.join('\n')}\n`;
}

/**
 * For `remove --local`: the running jobs using a package, as the engine config's state store
 * records them (a Redis one is the cluster's: its active jobs that named the package; an
 * in-memory one is no other process's, so no job is recorded there).
 */
async function recordedJobsUsing(opts: PluginsOpts): Promise<(entry: { jobs: readonly string[] }) => string[]> {
  const engine = engineConfig(opts);
  if (engine.tideway.stateStore.type !== 'redis') return () => [];
  const { stateStoreFromConfig } = await import('@tideway/cluster');
  const store = stateStoreFromConfig(engine);
  await store.open();
  try {
    const active = await store.activeJobs();
    return (entry) => active.filter((j) => entry.jobs.includes(j.info.jobId)).map((j) => `${j.info.jobId} (${j.info.jobName})`);
  } finally {
    await store.close();
  }
}

/** The coordinator's plugin store over this host's engine config, for --local. */
async function localStore(opts: PluginsOpts) {
  const engine = engineConfig(opts);
  await usePluginFolders(engine);
  const { PluginDistribution, pluginStoreCalls } = await import('@tideway/coordinator');
  return { engine, plugins: new PluginDistribution(checkpointStorageOf(engine), pluginStorageOf(engine)), local: pluginStoreCalls };
}

const print = (opts: PluginsOpts, value: unknown, text: string) =>
  process.stdout.write(opts.json ? `${JSON.stringify(value, null, 2)}\n` : text);

/**
 * `tideway plugins install|list|describe|remove`: the cluster's plugin store (checkpoint storage), from
 * which workers fetch the packages jobs name (docs/plugins.md, In a cluster).
 */
export function registerPluginsCommand(program: Command): void {
  const cmd = program.command('plugins').description("a cluster's plugin packages: install, list, describe, remove (docs/plugins.md)");
  const common = (c: Command) =>
    addressOptions(c).option('--local', "this host's plugin store and folders (the engine config's), without a cluster");

  common(
    cmd
      .command('install')
      .description('store a plugin package (a folder with its package.json, or an npm tarball) in the plugin store; admin role')
      .argument('<dir|tarball>', 'the package folder (built, with its node_modules) or its .tgz'),
  ).action(async (source: string, opts: PluginsOpts, c: Command) => {
    const { packSource } = await import('@tideway/plugins/store');
    // Checked and packed here first: a broken package is refused before anything is sent.
    const packed = await packSource(source);
    let info: PluginPackageInfo | undefined;
    if (opts.local) {
      const { plugins, local } = await localStore(opts);
      info = await local.install(plugins, packed.bytes, source).finally(() => plugins.close());
    } else {
      await withClient<PluginsOpts>(async (client) => {
        info = await client.installPluginPackage(packed.bytes, source);
      })(c);
    }
    if (!info) return;
    process.stderr.write(`tideway: plugin package ${info.name}@${info.version} stored (${plugins(info)}), sha256 ${info.hash}\n`);
    process.stdout.write(`${info.name}@${info.version} ${info.hash}\n`);
  });

  common(
    cmd
      .command('list')
      .description("the plugin store's packages, and the stored packages each process (coordinator, workers) has loaded")
      .option('--json', 'print JSON'),
  ).action(async (opts: PluginsOpts, c: Command) => {
    if (opts.local) {
      const { plugins, local } = await localStore(opts);
      const r = await local.list(plugins).finally(() => plugins.close());
      print(opts, r, listText(r));
      return;
    }
    await withClient<PluginsOpts>(async (client) => {
      const r = await client.listPluginPackages();
      print(opts, r, listText(r));
    })(c);
  });

  common(
    cmd
      .command('remove')
      .description(
        "remove a stored plugin package (its index entry and archive); refused while a running job uses it; admin role. A package still in a coordinator's plugin folders is stored again by the next job naming its plugins",
      )
      .argument('<name@version>', 'the package, as its package.json names it, and the version to remove'),
  ).action(async (what: string, opts: PluginsOpts, c: Command) => {
    const { name, version } = nameAndVersion(what);
    if (!name || !version)
      throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `'${what}': expected name@version (the store may hold several versions)`);
    let info: PluginPackageInfo | undefined;
    if (opts.local) {
      const usedBy = await recordedJobsUsing(opts);
      const { plugins, local } = await localStore(opts);
      const entries = new Map((await (await plugins.requireStore(`tideway plugins remove ${what}`)).list()).map((e) => [e.hash, e]));
      info = await local.remove(plugins, name, version, (hash) => usedBy(entries.get(hash) ?? { jobs: [] })).finally(() => plugins.close());
    } else {
      await withClient<PluginsOpts>(async (client) => {
        info = await client.removePluginPackage(name, version);
      })(c);
    }
    if (!info) return;
    process.stderr.write(`tideway: plugin package ${info.name}@${info.version} removed (${plugins(info)}), sha256 ${info.hash}\n`);
  });

  common(
    cmd
      .command('describe')
      .description('one stored package: its plugins, their kinds and options, its API range, hash and the jobs using it')
      .argument('<name[@version]>', 'the package (or one of its plugins); without a version, the one a job submitted now gets')
      .option('--json', 'print JSON'),
  ).action(async (what: string, opts: PluginsOpts, c: Command) => {
    const { name, version } = nameAndVersion(what);
    if (!name) throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `'${what}': expected a package name, or name@version`);
    if (opts.local) {
      const { plugins, local } = await localStore(opts);
      const r = await local.describe(plugins, name, version).finally(() => plugins.close());
      print(opts, { ...r, plugins: JSON.parse(r.pluginsJson) as unknown }, describeText(r));
      return;
    }
    await withClient<PluginsOpts>(async (client) => {
      const r = await client.describePluginPackage(name, version);
      print(opts, { package: r.package, plugins: JSON.parse(r.pluginsJson) as unknown }, describeText(r));
    })(c);
  });
}
