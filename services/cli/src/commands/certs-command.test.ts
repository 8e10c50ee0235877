import { describe, expect, it } from 'vitest';
import { checkCertsOptions } from './certs-command.js';

const opts = (more: Partial<Parameters<typeof checkCertsOptions>[0]>) => ({ out: 'o', host: [], days: '365', client: [], ...more });

describe('tideway cluster certs options', () => {
  it('takes client names that are a CN and a file name', () => {
    expect(checkCertsOptions(opts({ client: ['alice', 'ci-bot.team_a'] }))).toEqual({ days: 365, clients: ['alice', 'ci-bot.team_a'] });
    expect(checkCertsOptions(opts({ ca: 'tls', client: ['bob'] })).clients).toEqual(['bob']);
  });

  it('refuses names that clash or are no file names, and --ca without --client or with --host', () => {
    expect(() => checkCertsOptions(opts({ client: ['a/b'] }))).toThrow("--client a/b: expected letters, digits, '.', '_' or '-'");
    expect(() => checkCertsOptions(opts({ client: ['.x'] }))).toThrow('--client .x: expected');
    expect(() => checkCertsOptions(opts({ client: ['worker'] }))).toThrow('--client worker: the name of a file this command writes');
    expect(() => checkCertsOptions(opts({ client: ['ca'] }))).toThrow('--client ca: the name of a file');
    expect(() => checkCertsOptions(opts({ client: ['a', 'a'] }))).toThrow('--client: a name is given twice');
    expect(() => checkCertsOptions(opts({ ca: 'tls' }))).toThrow('--ca: give the certificates to sign with --client <name>');
    expect(() => checkCertsOptions(opts({ ca: 'tls', client: ['a'], host: ['h'] }))).toThrow('--host: client certificates of --ca');
    expect(() => checkCertsOptions(opts({ days: '0' }))).toThrow('--days 0: expected a whole number');
  });
});
