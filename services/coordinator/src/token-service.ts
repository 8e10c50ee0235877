import type * as grpc from '@grpc/grpc-js';
import type { CreateTokenRequest, ListTokensResponse, RevokeTokenRequest, RevokeTokenResponse, TokenInfo } from '@tideway/contracts';
import { ConfigError, ErrorCode, TidewayError, logger } from '@tideway/common';
import { NAMESPACE_NAME } from '@tideway/config';
import type { StoredToken, TokenStore } from '@tideway/cluster';
import { ROLES, configTokens, parseTokenTable, storedTokensChanged, unaryHandler, type Role, type TokenEntry } from '@tideway/rpc';

const log = logger('auth');
const TOKEN_NAME = /^[A-Za-z0-9._-]+$/;

/** The state store's tokens as the auth table takes them; a record with a role Tideway has not is skipped (and said). */
export async function storedTokenEntries(store: TokenStore): Promise<TokenEntry[]> {
  return (await store.tokens()).flatMap((t): TokenEntry[] => {
    if (ROLES.includes(t.role as Role)) return [{ hash: t.hash, role: t.role as Role, namespace: t.namespace, name: t.name }];
    log.warn({ token: t.name, role: t.role }, 'a token of the state store has an unknown role and is not accepted');
    return [];
  });
}

const info = (t: Pick<StoredToken, 'name' | 'role' | 'namespace'>, source: string, createdMs = 0): TokenInfo => ({
  name: t.name,
  role: t.role,
  namespace: t.namespace,
  source,
  createdMs,
});

/**
 * TokenService: admins add, revoke and list the tokens kept in the state store (the interceptor
 * lets admin tokens only in). Refused, with the setting to change, when authentication is off
 * (a stored token would turn nothing on) or the state store is in memory (it would be lost at
 * the restart, and other coordinators would not see it).
 */
export function tokenServiceHandlers(store: TokenStore | undefined): grpc.UntypedServiceImplementation {
  const usable = (method: string): TokenStore => {
    if (configTokens().length === 0) {
      throw new ConfigError(
        ErrorCode.ENGINE_CONFIG,
        `${method}: authentication is off on this cluster; tokens in the state store need at least one admin token under tideway.auth.tokens in every coordinator's engine config`,
      );
    }
    if (!store) {
      throw new ConfigError(
        ErrorCode.ENGINE_CONFIG,
        `${method}: this coordinator keeps its state in memory, where a token would be lost at the restart; use tideway.state-store.type: redis, or add the token to tideway.auth.tokens`,
      );
    }
    return store;
  };
  return {
    createToken: unaryHandler<CreateTokenRequest, TokenInfo>(async (req) => {
      const s = usable('CreateToken');
      if (!TOKEN_NAME.test(req.name))
        throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `CreateToken: name '${req.name}': letters, digits, '.', '_' and '-' only`);
      if (req.namespace && !NAMESPACE_NAME.test(req.namespace))
        throw new ConfigError(
          ErrorCode.CONFIG_BAD_VALUE,
          `CreateToken: namespace '${req.namespace}': letters, digits, '.', '_' and '-' only`,
        );
      let entry: TokenEntry;
      try {
        [entry] = parseTokenTable({ [req.name]: `${req.hash} ${req.role} ${req.namespace}` }, 'CreateToken') as [TokenEntry];
      } catch (err) {
        throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, (err as Error).message);
      }
      if (configTokens().some((t) => t.name === entry.name))
        throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `CreateToken: a token named '${entry.name}' is in the engine config already`);
      const stored: StoredToken = { ...entry, createdMs: Date.now() };
      if (!(await s.addToken(stored)))
        throw new ConfigError(
          ErrorCode.CONFIG_BAD_VALUE,
          `CreateToken: a token named '${entry.name}' is in the state store already: revoke it first`,
        );
      storedTokensChanged();
      log.info({ token: entry.name, role: entry.role, namespace: entry.namespace }, 'token added to the state store');
      return info(stored, 'state-store', stored.createdMs);
    }),
    revokeToken: unaryHandler<RevokeTokenRequest, RevokeTokenResponse>(async (req) => {
      const s = usable('RevokeToken');
      if (configTokens().some((t) => t.name === req.name)) {
        throw new ConfigError(
          ErrorCode.CONFIG_BAD_VALUE,
          `RevokeToken: token '${req.name}' is in the engine config: remove it from tideway.auth.tokens of every coordinator and restart them`,
        );
      }
      const removed = await s.removeToken(req.name);
      if (!removed) throw new TidewayError(ErrorCode.NOT_FOUND, `RevokeToken: the state store has no token named '${req.name}'`);
      storedTokensChanged();
      log.info({ token: req.name }, 'token revoked from the state store');
      return { token: info(removed, 'state-store', removed.createdMs) };
    }),
    listTokens: unaryHandler<object, ListTokensResponse>(async () => {
      const fromConfig = configTokens().map((t) => info(t, 'engine-config'));
      const fromStore = store && configTokens().length > 0 ? (await store.tokens()).map((t) => info(t, 'state-store', t.createdMs)) : [];
      return { tokens: [...fromConfig, ...fromStore] };
    }),
  };
}
