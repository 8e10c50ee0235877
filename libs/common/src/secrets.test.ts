import { describe, expect, it } from 'vitest';
import { TidewayError, ErrorCode, serializeError } from './errors.js';
import { MASK, isSensitiveKey, redactSecrets, redactText, rememberSecret, rememberSecretsOf } from './secrets.js';

describe('secrets', () => {
  it.each([
    'password',
    'PASSWORD',
    'secret_key',
    'access_key',
    'fs.s3a.secret.key',
    'client.secret',
    'token',
    'api_key',
    'sasl.jaas.config',
    'kafka.config.sasl.jaas.config',
    'auth',
  ])('%s is sensitive', (key) => expect(isSensitiveKey(key)).toBe(true));
  it.each(['user', 'username', 'url', 'table', 'partition_num', 'oauth_endpoint', 'database'])('%s is shown', (key) =>
    expect(isSensitiveKey(key)).toBe(false),
  );

  it('masks sensitive keys at any depth, keeps the rest, leaves the input unchanged', () => {
    const input = {
      url: 'jdbc:postgresql://h:5432/db',
      user: 'app',
      password: 'hunter22',
      nested: { secret_key: 'k1', list: [{ token: 't' }] },
    };
    const out = redactSecrets(input);
    expect(out).toEqual({
      url: 'jdbc:postgresql://h:5432/db',
      user: 'app',
      password: MASK,
      nested: { secret_key: MASK, list: [{ token: MASK }] },
    });
    expect(input.password).toBe('hunter22');
  });

  it('masks passwords of URLs and key=value pairs in text', () => {
    expect(redactText('connect to postgres://app:s3cr3t@db:5432/x failed')).toBe(`connect to postgres://app:${MASK}@db:5432/x failed`);
    expect(redactText('jdbc:mysql://h/db?user=a&password=p4ss&ssl=true')).toBe(`jdbc:mysql://h/db?user=a&password=${MASK}&ssl=true`);
    expect(redactText('{"password":"abc","user":"u"}')).toBe(`{"password":"${MASK}","user":"u"}`);
    // An object under such a key stays JSON: its members are masked by their own keys.
    expect(redactText('{"secret":{"key":"v","token":"t"}}')).toBe(`{"secret":{"key":"v","token":"${MASK}"}}`);
  });

  it('masks remembered secrets wherever they appear, also inside errors', () => {
    rememberSecretsOf({ sink: [{ password: 'Zq9-remembered-pw' }] });
    rememberSecret('abc'); // too short to mask safely: ignored
    expect(redactText('login failed for Zq9-remembered-pw; abc')).toBe(`login failed for ${MASK}; abc`);
    expect(new TidewayError(ErrorCode.EXTERNAL_SYSTEM, 'bad login Zq9-remembered-pw').message).toBe(`bad login ${MASK}`);
    expect(serializeError(new Error('x Zq9-remembered-pw y')).message).toBe(`x ${MASK} y`);
  });

  it('remembers a secret under a dotted key that HOCON nests (fs.s3a.secret.key)', () => {
    rememberSecretsOf({ spark: { hadoop: { fs: { s3a: { secret: { key: 'Zq9-nested-s3-key' }, endpoint: 'http://s3' } } } } });
    expect(redactText('key Zq9-nested-s3-key, endpoint http://s3')).toBe(`key ${MASK}, endpoint http://s3`);
  });
});
