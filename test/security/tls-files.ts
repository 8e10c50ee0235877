import { join } from 'node:path';
import type { ProcessName } from '../cluster/test-cluster.js';

/** The files of `tideway cluster certs --out base` for one certificate (a role's or a --client name's). */
export const tlsFiles = (base: string, name: string) => ({
  caFile: join(base, 'ca.pem'),
  certFile: join(base, `${name}.pem`),
  keyFile: join(base, `${name}-key.pem`),
});

/** The certificate a test cluster's process presents: its role's. */
export const certRoleOf = (name: ProcessName) =>
  name.startsWith('worker-') ? 'worker' : name.startsWith('coordinator') ? 'coordinator' : 'resource-manager';
