import type { PeerCertificate } from 'node:tls';
import { describe, expect, it } from 'vitest';
import { certificateCaller, certificateNames, parseCertificateTable } from './cert-auth.js';

const W = 'tideway.auth.certificates';

/** The fields of a peer certificate that matching reads, as node:tls reports them. */
const cert = (cn: string | undefined, san = ''): PeerCertificate =>
  ({ subject: cn === undefined ? {} : { CN: cn }, subjectaltname: san || undefined, serialNumber: '0A' }) as unknown as PeerCertificate;

describe('tideway.auth.certificates', () => {
  it('reads a CN, CN:, and subjectAltName keys with a role and namespace', () => {
    const table = parseCertificateTable(
      { alice: 'operator team-a', 'CN:team:ops': 'viewer ops', 'URI:spiffe://c/ci': 'admin', 'IP:10.0.0.5': ' viewer  t ' },
      W,
    );
    expect(table.map((e) => [e.kind, e.value, e.role, e.namespace])).toEqual([
      ['CN', 'alice', 'operator', 'team-a'],
      ['CN', 'team:ops', 'viewer', 'ops'],
      ['URI', 'spiffe://c/ci', 'admin', ''],
      ['IP', '10.0.0.5', 'viewer', 't'],
    ]);
  });

  it('refuses malformed entries, naming the key', () => {
    expect(() => parseCertificateTable({ alice: 'root' }, W)).toThrow(
      `${W}.alice: expected "<role> [<namespace>]" with a role of viewer, operator, admin`,
    );
    expect(() => parseCertificateTable({ alice: 'viewer a b' }, W)).toThrow(`${W}.alice: expected`);
    expect(() => parseCertificateTable({ alice: 42 }, W)).toThrow(`${W}.alice: expected`);
    expect(() => parseCertificateTable({ alice: 'operator' }, W)).toThrow(`${W}.alice: a operator certificate needs a namespace`);
    expect(() => parseCertificateTable({ 'SAN:x': 'admin' }, W)).toThrow(`${W}.SAN:x: 'SAN:' is not a certificate field`);
    expect(() => parseCertificateTable({ 'DNS:': 'admin' }, W)).toThrow(`${W}.DNS:: nothing after the colon`);
    expect(() => parseCertificateTable({ ' bob': 'admin' }, W)).toThrow(`${W}. bob: expected a subject CN`);
  });
});

describe('matching a client certificate', () => {
  const table = parseCertificateTable(
    { alice: 'operator team-a', 'DNS:ci.internal': 'viewer team-b', 'email:bob@x.org': 'viewer team-b', 'URI:spiffe://a,b': 'admin' },
    W,
  );

  it('reads the CN and the subjectAltNames as node:tls prints them (a value with a comma is quoted)', () => {
    expect(certificateNames(cert('alice', 'DNS:ci.internal, IP Address:127.0.0.1, URI:"spiffe://a,b", email:bob@x.org'))).toEqual([
      { kind: 'CN', value: 'alice' },
      { kind: 'DNS', value: 'ci.internal' },
      { kind: 'IP', value: '127.0.0.1' },
      { kind: 'URI', value: 'spiffe://a,b' },
      { kind: 'email', value: 'bob@x.org' },
    ]);
  });

  it('maps by CN or subjectAltName; a CN is not a DNS name', () => {
    expect(certificateCaller(table, cert('alice'))).toMatchObject({ name: 'alice', role: 'operator' });
    expect(certificateCaller(table, cert('x', 'DNS:ci.internal'))).toMatchObject({ name: 'DNS:ci.internal', role: 'viewer' });
    expect(certificateCaller(table, cert(undefined, 'URI:"spiffe://a,b"'))).toMatchObject({ role: 'admin' });
    expect(certificateCaller(table, cert('ci.internal'))).toBe(
      'the client certificate CN=ci.internal is not in tideway.auth.certificates, and no bearer token was sent',
    );
  });

  it('takes entries that agree, and refuses a certificate that matches entries that do not', () => {
    expect(certificateCaller(table, cert('y', 'DNS:ci.internal, email:bob@x.org'))).toMatchObject({ role: 'viewer', namespace: 'team-b' });
    expect(certificateCaller(table, cert('alice', 'DNS:ci.internal'))).toBe(
      "the client certificate CN=alice matches tideway.auth.certificates entries with different roles or namespaces ('alice', 'DNS:ci.internal')",
    );
  });
});
