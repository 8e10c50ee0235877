import { describe, expect, it } from 'vitest';
import * as grpc from '@grpc/grpc-js';
import { authorize, authorizeCall, callerOf, configureAuth, hashToken, newToken, parseTokenTable, useStoredTokens } from './auth.js';

describe('bearer tokens', () => {
  const viewer = newToken();
  const admin = newToken();
  const table = parseTokenTable({ v: `${hashToken(viewer)} viewer team-a`, a: `${hashToken(admin)} admin` }, 'tideway.auth.tokens');

  it('parses the engine-config lines and refuses malformed ones naming the entry', () => {
    expect(table).toEqual([
      { hash: hashToken(viewer), role: 'viewer', namespace: 'team-a', name: 'v' },
      { hash: hashToken(admin), role: 'admin', namespace: '', name: 'a' },
    ]);
    expect(() => parseTokenTable({ x: 'sha256:abc viewer t' }, 'tideway.auth.tokens')).toThrow(/^tideway\.auth\.tokens\.x: expected/);
    expect(() => parseTokenTable({ x: `${hashToken('t')} root` }, 'tideway.auth.tokens')).toThrow(/role of viewer, operator, admin/);
    expect(() => parseTokenTable({ x: `${hashToken('t')} operator` }, 'tideway.auth.tokens')).toThrow(
      'tideway.auth.tokens.x: a operator token needs a namespace',
    );
  });

  it('no token and unknown tokens are unauthenticated; a low role is denied; a high one passes', () => {
    expect(authorize(table, undefined, 'ListJobs', 'viewer')).toMatchObject({ code: grpc.status.UNAUTHENTICATED, http: 401 });
    expect(authorize(table, 'Bearer nope', 'ListJobs', 'viewer')).toMatchObject({ code: grpc.status.UNAUTHENTICATED });
    expect(authorize(table, `Basic ${viewer}`, 'ListJobs', 'viewer')).toMatchObject({ code: grpc.status.UNAUTHENTICATED });
    expect(authorize(table, `Bearer ${viewer}`, 'ListJobs', 'viewer')).toBeUndefined();
    expect(authorize(table, `Bearer ${viewer}`, 'SubmitJob', 'operator')).toEqual({
      code: grpc.status.PERMISSION_DENIED,
      http: 403,
      message: "SubmitJob needs the role operator or above: token 'v' has the role viewer",
    });
    expect(authorize(table, `bearer ${admin}`, 'SubmitJob', 'operator')).toBeUndefined();
  });
});

describe("the process's token table", () => {
  it('lets every call in with no engine-config tokens; then accepts a stored token on its first call, and no longer once it is gone', async () => {
    configureAuth([]);
    expect(await authorizeCall(undefined, 'CancelJob', 'operator')).toBeUndefined();
    expect(callerOf(undefined)).toBeUndefined();
    const admin = newToken();
    const late = newToken();
    let stored = [{ hash: hashToken(late), role: 'operator' as const, namespace: 'team-b', name: 'late' }];
    configureAuth(parseTokenTable({ a: `${hashToken(admin)} admin` }, 'tideway.auth.tokens'));
    useStoredTokens(() => Promise.resolve(stored));
    expect(await authorizeCall(`Bearer ${late}`, 'CancelJob', 'operator')).toBeUndefined();
    expect(callerOf(`Bearer ${late}`)).toMatchObject({ name: 'late', namespace: 'team-b' });
    stored = [];
    await new Promise((r) => setTimeout(r, 250)); // past the look-up interval for unknown tokens
    expect(await authorizeCall(`Bearer ${newToken()}`, 'ListJobs', 'viewer')).toMatchObject({ code: grpc.status.UNAUTHENTICATED });
    expect(await authorizeCall(`Bearer ${late}`, 'ListJobs', 'viewer')).toMatchObject({ code: grpc.status.UNAUTHENTICATED });
    // A handler asking for a caller whose token went meanwhile is refused, not let in as "no authentication".
    expect(() => callerOf(`Bearer ${late}`)).toThrow("the bearer token is not one of this cluster's tokens (any more)");
    configureAuth([]);
  });
});
