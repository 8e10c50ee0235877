import { expect } from 'vitest';
import { freePort } from '@tideway/testing';
import { runCli } from '../conformance/cli-process.js';
import { TestCluster } from '../cluster/test-cluster.js';

/**
 * A token made by `tideway token create` (team-a's, unless admin) and its engine-config line,
 * indented to go under `tideway: auth: tokens:` of TestCluster's tidewayYaml.
 */
export async function createToken(role: 'viewer' | 'operator' | 'admin', name: string = role): Promise<{ token: string; line: string }> {
  const res = await runCli(['token', 'create', '--role', role, ...(role === 'admin' ? [] : ['--namespace', 'team-a']), '--name', name]);
  expect(res.code, res.stderr).toBe(0);
  return { token: /^token: (\S+)$/m.exec(res.stdout)![1], line: `    ${/^ {2}(\w+: ".*")$/m.exec(res.stdout)![1]}` };
}

/**
 * A test cluster (one worker, 2 slots) with the REST API on a free port and a token for each
 * role under tideway.auth.tokens: the cluster, the tokens by role and the REST API's address.
 */
export async function startTokenCluster<R extends 'viewer' | 'operator' | 'admin'>(
  roles: readonly R[],
): Promise<{ cluster: TestCluster; tokens: Record<R, string>; base: string }> {
  const tokens = {} as Record<R, string>;
  const lines: string[] = [];
  for (const role of roles) {
    const { token, line } = await createToken(role);
    tokens[role] = token;
    lines.push(line);
  }
  const port = await freePort();
  const cluster = await TestCluster.start({
    workers: [{ attributes: {} }],
    slotNum: 2,
    jobScheduleStrategy: 'WAIT',
    tidewayYaml: ['auth:', '  tokens:', ...lines],
    engineYaml: ['http:', '  enable-http: true', `  port: ${port}`, '  enable-dynamic-port: false'],
  });
  return { cluster, tokens, base: `http://127.0.0.1:${port}` };
}
