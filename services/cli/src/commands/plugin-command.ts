import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { ConfigError, ErrorCode } from '@tideway/common';
import { packageFolderName, pluginName, pluginPackageFiles, type PluginKind } from './plugin-templates.js';

const KINDS: readonly PluginKind[] = ['source', 'sink', 'transform'];

export function registerPluginCommand(program: Command): void {
  const plugin = program.command('plugin').description('write plugin packages (docs/plugins.md)');
  plugin
    .command('new')
    .description('scaffold a plugin package, with its tests, in a new folder (<dir>/<name in kebab case>)')
    .argument('<name>', 'plugin name as jobs will use it, e.g. HttpSink or http-sink')
    .requiredOption('--kind <kind>', `what it is: ${KINDS.join(', ')}`)
    .option('--dir <dir>', 'the folder to create the package folder in', '.')
    .action((name: string, opts: { kind: string; dir: string }) => {
      if (!KINDS.includes(opts.kind as PluginKind))
        throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `--kind ${opts.kind}: expected one of ${KINDS.join(', ')}`);
      if (!/^[A-Za-z][A-Za-z0-9_-]*$/.test(name))
        throw new ConfigError(
          ErrorCode.CONFIG_BAD_VALUE,
          `plugin name '${name}': expected letters, digits, - and _, starting with a letter`,
        );
      const target = resolve(opts.dir, packageFolderName(pluginName(name)));
      if (existsSync(target)) throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `${target} already exists; pick another name or --dir`);
      for (const [file, text] of Object.entries(pluginPackageFiles(name, opts.kind as PluginKind))) {
        mkdirSync(dirname(join(target, file)), { recursive: true });
        writeFileSync(join(target, file), text);
      }
      process.stdout.write(
        `${target}: ${opts.kind} plugin ${pluginName(name)}; next: npm install --save-peer <@tideway/api tarball>, npm install, npm test (docs/plugins.md)\n`,
      );
    });
}
