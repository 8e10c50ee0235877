import type { Command } from 'commander';
import { ConfigError, ErrorCode } from '@tideway/common';
import { ROLES, hashToken, newToken, type Role } from '@tideway/rpc';

/**
 * `tideway token create --role R [--namespace N] [--name NAME]`: prints a new bearer token
 * (once: only its hash is kept) and the tideway.auth.tokens line that admits it.
 */
export function registerTokenCommand(program: Command): void {
  const token = program.command('token').description('bearer tokens of JobService and the REST API (tideway.auth.tokens)');
  token
    .command('create')
    .description("print a new token and the line to add under tideway.auth.tokens in every coordinator's engine config")
    .requiredOption('--role <role>', `one of ${ROLES.join(', ')}`)
    .option('--namespace <name>', 'the namespace of the jobs it submits (required for viewer and operator)')
    .option('--name <name>', 'a name for the token in the engine config and in refusals', '')
    .action((opts: { role: string; namespace?: string; name: string }) => {
      if (!ROLES.includes(opts.role as Role))
        throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `--role ${opts.role}: expected one of ${ROLES.join(', ')}`);
      if (opts.role !== 'admin' && !opts.namespace)
        throw new ConfigError(ErrorCode.CONFIG_MISSING_OPTION, `--role ${opts.role} needs --namespace`);
      if (opts.namespace !== undefined && !/^[A-Za-z0-9._-]+$/.test(opts.namespace)) {
        throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `--namespace ${opts.namespace}: letters, digits, '.', '_' and '-' only`);
      }
      const value = newToken();
      const name = opts.name || `${opts.role}-${opts.namespace ?? 'all'}-${value.slice(3, 9)}`;
      const line = [hashToken(value), opts.role, opts.namespace ?? ''].join(' ').trim();
      process.stdout.write(`token: ${value}\n`);
      process.stdout.write(`engine config (tideway: auth: tokens:):\n  ${name}: "${line}"\n`);
    });
}
