/**
 * Bearer tokens kept in the cluster's state store, beside those of the engine config: what
 * `tideway token create --store` adds and `tideway token revoke` removes. Only the SHA-256 of a
 * token is kept. Writes are not fenced by the leader epoch: any coordinator may serve them (they
 * are an admin's, not a leader's), and each is one atomic Redis command.
 */
export interface StoredToken {
  name: string;
  /** `sha256:<hex>` of the token. */
  hash: string;
  /** viewer, operator or admin. */
  role: string;
  /** '' for an admin token without a namespace. */
  namespace: string;
  createdMs: number;
}

export interface TokenStore {
  /** Every stored token, by name order. */
  tokens(): Promise<StoredToken[]>;
  /** Adds a token; false (nothing written) when the name is taken. */
  addToken(token: StoredToken): Promise<boolean>;
  /** Removes a token by name: the removed one, or undefined when there was none. */
  removeToken(name: string): Promise<StoredToken | undefined>;
}
