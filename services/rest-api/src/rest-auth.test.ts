import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configureAuth, hashToken } from '@tideway/rpc';
import type { JobApi } from './job-api.js';
import { buildRestApp } from './rest-server.js';

/** Answers every list with no jobs; the other calls are not reached by these requests. */
const jobs = { list: async () => ({ jobs: [] }) } as unknown as JobApi;
const app = buildRestApp(jobs, '/seatunnel');
const operator = 'tw_operator-token-of-this-test';

beforeAll(() => configureAuth([{ hash: hashToken(operator), role: 'operator', namespace: 'team-a', name: 'op' }]));
afterAll(async () => {
  configureAuth([]);
  await app.close();
});

const get = (url: string, token?: string) => app.inject({ method: 'GET', url, headers: token ? { authorization: `Bearer ${token}` } : {} });

describe('REST authentication by route', () => {
  it("serves the dashboard's page and scripts without a token, and refuses its /ui/api routes", async () => {
    expect((await get('/seatunnel/ui/')).statusCode).toBe(200);
    expect((await get('/seatunnel/ui')).statusCode).toBe(302);
    expect((await get('/seatunnel/ui/api/jobs')).statusCode).toBe(401);
    expect((await get('/seatunnel/ui/api/jobs', operator)).statusCode).toBe(200);
  });

  it('judges the route the router matched, not the URL as spelled (%xx escapes)', async () => {
    expect((await get('/seatunnel/ui/%61pi/jobs')).statusCode).toBe(401);
    const tags = await app.inject({
      method: 'POST',
      url: '/seatunnel/updat%65-tags',
      headers: { authorization: `Bearer ${operator}` },
      payload: '{}',
    });
    expect(tags.statusCode).toBe(403);
    expect(tags.json<{ message: string }>().message).toContain('needs the role admin');
  });
});
