import type { Command } from 'commander';
import { parseJobConfig, shadeJobConfigJson } from '@tideway/config';
import { readJobInput } from '../config-input.js';
import { collect } from './options.js';

/**
 * `tideway encrypt` / `tideway decrypt` (SeaTunnel's `--encrypt` / `--decrypt`): print the job
 * config as JSON with the shaded options of its sources and sinks (password, username, auth,
 * token, access_key, secret_key) encrypted or decrypted by its env shade.identifier.
 */
export function registerShadeCommands(program: Command): void {
  for (const mode of ['encrypt', 'decrypt'] as const) {
    program
      .command(mode)
      .description(
        mode === 'encrypt'
          ? 'print the job config as JSON with the passwords, usernames, tokens and keys of its sources and sinks encrypted by its env shade.identifier (base64 or aes256)'
          : 'print a config written by encrypt as JSON with those options decrypted',
      )
      .requiredOption('-c, --config <file>', 'job config (HOCON, or JSON when it ends in .json)')
      .option('-i, --variable <key=value>', 'job variable for ${key} in the config (repeatable)', collect, [])
      .action((opts: { config: string; variable: string[] }) => {
        const input = readJobInput(opts.config, opts.variable);
        // Parsed as written (shade: false): the values are what this command encrypts or decrypts.
        const config = parseJobConfig(input.configText, {
          file: input.configFile,
          format: input.format as 'hocon' | 'json',
          variables: input.variables,
          shade: false,
        });
        process.stdout.write(`${JSON.stringify(shadeJobConfigJson(config, mode), null, 2)}\n`);
      });
  }
}
