import type { Command } from 'commander';
import { TokenServiceClient, type TokenInfo } from '@tideway/contracts';
import { ConfigError, ErrorCode } from '@tideway/common';
import { NAMESPACE_NAME } from '@tideway/config';
import {
  LeaderCaller,
  ROLES,
  bearerInterceptor,
  call,
  channelCredentials,
  clientOptions,
  hashToken,
  newToken,
  type Role,
} from '@tideway/rpc';
import { addressOptions, addresses, type AddressOpts } from './job-commands.js';
import { unreachableCoordinator } from '../unreachable.js';

interface CreateOpts extends AddressOpts {
  role: string;
  namespace?: string;
  name: string;
  store?: boolean;
}

/**
 * Runs `fn` against TokenService of the coordinators (any of them answers; one that cannot be
 * reached is skipped), with the admin token of --token or TIDEWAY_TOKEN.
 */
async function withTokenService<T>(opts: AddressOpts, fn: (c: TokenServiceClient) => Promise<T>): Promise<T> {
  const at = addresses(opts);
  const token = opts.token ?? process.env.TIDEWAY_TOKEN;
  const options = token ? { ...clientOptions, interceptors: [bearerInterceptor(token)] } : clientOptions;
  const caller = new LeaderCaller(at, (a) => new TokenServiceClient(a, channelCredentials(), options));
  try {
    return await caller.call((c) => fn(c), 10_000);
  } catch (err) {
    throw unreachableCoordinator(at, err) ?? err;
  } finally {
    caller.close();
  }
}

const describeToken = (t: TokenInfo) => `'${t.name}' (role ${t.role}${t.namespace ? `, namespace ${t.namespace}` : ''})`;

/**
 * `tideway token create|revoke|list`: bearer tokens of JobService and the REST API. `create`
 * prints a new token (once: only its hash is kept) with the tideway.auth.tokens line that admits
 * it, or with --store adds it to the cluster's state store through TokenService (admins only),
 * where every coordinator accepts it without a restart; `revoke` removes such a token.
 */
export function registerTokenCommand(program: Command): void {
  const token = program
    .command('token')
    .description('bearer tokens of JobService and the REST API (tideway.auth.tokens, or the state store)');
  addressOptions(
    token
      .command('create')
      .description(
        "print a new token and the line to add under tideway.auth.tokens in every coordinator's engine config; with --store, add it to the cluster's state store instead (no restart; needs an admin --token)",
      )
      .requiredOption('--role <role>', `one of ${ROLES.join(', ')}`)
      .option('--namespace <name>', 'the namespace of the jobs it submits, sees and stops (required for viewer and operator)')
      .option('--name <name>', 'a name for the token in the engine config and in refusals', '')
      .option('--store', "add it to the cluster's state store (Redis) through a coordinator at --address"),
  ).action(async (opts: CreateOpts) => {
    if (!ROLES.includes(opts.role as Role))
      throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `--role ${opts.role}: expected one of ${ROLES.join(', ')}`);
    if (opts.role !== 'admin' && !opts.namespace)
      throw new ConfigError(ErrorCode.CONFIG_MISSING_OPTION, `--role ${opts.role} needs --namespace`);
    if (opts.namespace !== undefined && !NAMESPACE_NAME.test(opts.namespace)) {
      throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `--namespace ${opts.namespace}: letters, digits, '.', '_' and '-' only`);
    }
    if (!opts.store) {
      const stray = (['address', 'token', 'engineConfig'] as const).find((k) => opts[k] !== undefined);
      if (stray)
        throw new ConfigError(
          ErrorCode.CONFIG_BAD_VALUE,
          `--${stray === 'engineConfig' ? 'engine-config' : stray} goes with --store only: without it nothing is sent to a cluster`,
        );
    }
    const value = newToken();
    const name = opts.name || `${opts.role}-${opts.namespace ?? 'all'}-${value.slice(3, 9)}`;
    if (opts.store) {
      const req = { name, hash: hashToken(value), role: opts.role, namespace: opts.namespace ?? '' };
      const added = await withTokenService(opts, (c) => call(c, 'createToken', req, { deadlineMs: 10_000 }));
      process.stdout.write(`token: ${value}\n`);
      process.stdout.write(`added to the cluster's state store as ${describeToken(added)}\n`);
      return;
    }
    const line = [hashToken(value), opts.role, opts.namespace ?? ''].join(' ').trim();
    process.stdout.write(`token: ${value}\n`);
    process.stdout.write(`engine config (tideway: auth: tokens:):\n  ${name}: "${line}"\n`);
  });
  addressOptions(
    token
      .command('revoke')
      .description(
        "remove a token from the cluster's state store (needs an admin --token); engine-config tokens are removed from the config",
      )
      .argument('<name>'),
  ).action(async (name: string, opts: AddressOpts) => {
    const res = await withTokenService(opts, (c) => call(c, 'revokeToken', { name }, { deadlineMs: 10_000 }));
    process.stdout.write(`revoked ${describeToken(res.token!)}\n`);
  });
  addressOptions(token.command('list').description('the tokens the cluster accepts, without their hashes (needs an admin --token)')).action(
    async (opts: AddressOpts) => {
      const res = await withTokenService(opts, (c) => call(c, 'listTokens', {}, { deadlineMs: 10_000 }));
      for (const t of res.tokens) process.stdout.write(`${t.name}\t${t.role}\t${t.namespace || '-'}\t${t.source}\n`);
    },
  );
}
