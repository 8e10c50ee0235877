import type { SeededRandom } from './seeded-random.js';
import { badConfig, unknownJobId } from './bad-values.js';

/** One malformed REST request. */
export interface RestCase {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  /** Whether the request could change a job if it were well formed (POST routes). */
  mutating: boolean;
}

const GET_ROUTES = [
  '/overview',
  '/running-jobs',
  '/finished-jobs',
  '/system-monitoring-information',
  '/metrics',
  '/openmetrics',
  '/logs',
  '/log',
  '/ui',
  '/ui/',
];
const POST_ROUTES = ['/submit-job', '/submit-jobs', '/stop-job', '/stop-jobs', '/encrypt-config', '/update-tags'];

function query(rng: SeededRandom): string {
  const params = [
    `format=${rng.pick(['json', 'hocon', 'yaml', '', 'JSON', '%zz', encodeURIComponent(rng.text(5))])}`,
    `jobId=${encodeURIComponent(unknownJobId(rng))}`,
    `isStartWithSavePoint=${rng.pick(['true', 'maybe', '1', '', 'TRUE'])}`,
    `jobName=${encodeURIComponent(rng.text(rng.int(300)))}`,
    'jobId=1&jobId=2',
    `${encodeURIComponent(rng.text(8))}=${encodeURIComponent(rng.text(8))}`,
    '%',
    `a[b][c]=${rng.int(9)}`,
  ];
  const n = rng.int(4);
  return n === 0 ? '' : `?${Array.from({ length: n }, () => rng.pick(params)).join('&')}`;
}

function body(rng: SeededRandom, maxBodyBytes: number, knownJobId: string, mayUseKnown: boolean): string | Buffer {
  const id = mayUseKnown && rng.chance(0.3) ? knownJobId : unknownJobId(rng);
  const deep = 65 + rng.int(20_000);
  return rng.pick([
    () => badConfig(rng).text,
    () => rng.text(rng.int(500)),
    () => rng.bytes(rng.int(500)),
    () => '',
    () => 'null',
    () =>
      `{"jobId": ${rng.pick([JSON.stringify(id), '1e400', '-5', '[]', '{}', 'null', 'true'])}, "isStopWithSavePoint": ${rng.pick(['false', '"maybe"', '1', 'null'])}}`,
    () =>
      `[${Array.from({ length: rng.int(5) }, () => rng.pick(['1', 'null', '"x"', `{"jobId": ${JSON.stringify(id)}}`, '[]'])).join(',')}]`,
    () => `${'['.repeat(deep)}${']'.repeat(deep)}`,
    () => `{"a": ${'{"a": '.repeat(deep)}1${'}'.repeat(deep)}}`,
    () => `[${'{"env": {"job.mode": "BATCH"}, "source": [], "sink": [], "params": 5},'.repeat(1 + rng.int(3))}1]`,
    () => 'x'.repeat(maxBodyBytes + 1 + rng.int(1000)),
    () =>
      `{"env": {"job.mode": "BATCH"}, "source": [{"plugin_name": "FakeSource", "row.num": "many"}], "sink": [{"plugin_name": "Console"}]}`,
  ])();
}

/**
 * A REST request of every kind that should be refused: bad methods, paths and ids, bad query
 * parameters, bodies that are not JSON, not HOCON, of the wrong shape, nested too deep, or past
 * max-body-bytes. The running job's id appears only in requests sent with the viewer token (or
 * none), which may not change it.
 */
export function restCase(
  rng: SeededRandom,
  contextPath: string,
  tokens: { viewer: string; operator: string },
  knownJobId: string,
  maxBodyBytes: number,
): RestCase {
  const kind = rng.int(4);
  let method: string;
  let path: string;
  if (kind === 0) {
    method = rng.pick(['GET', 'HEAD']);
    path = rng.pick([
      ...GET_ROUTES,
      `/job-info/${encodeURIComponent(unknownJobId(rng))}`,
      `/running-job/${encodeURIComponent(unknownJobId(rng))}`,
      `/finished-jobs/${encodeURIComponent(rng.pick(['FAILED', 'nope', '', rng.text(10)]))}`,
      `/logs/${encodeURIComponent(rng.pick(['../../etc/passwd', 'x.log', rng.text(10)]))}`,
      `/ui/${encodeURIComponent(rng.text(10))}`,
      `/${encodeURIComponent(rng.text(rng.int(20)))}`,
    ]);
  } else if (kind === 1) {
    method = rng.pick(['PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE', 'GET']);
    path = rng.pick([...POST_ROUTES, ...GET_ROUTES]);
  } else {
    method = 'POST';
    path = rng.pick(POST_ROUTES);
  }
  const mutating = method === 'POST';
  const mayUseKnown = true;
  const b = method === 'GET' || method === 'HEAD' || method === 'TRACE' ? undefined : body(rng, maxBodyBytes, knownJobId, mayUseKnown);
  const usesKnown = typeof b === 'string' && b.includes(knownJobId);
  const token = usesKnown
    ? rng.pick([tokens.viewer, ''])
    : rng.pick([tokens.viewer, tokens.operator, tokens.operator, '', 'tw_not-a-token']);
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (b !== undefined)
    headers['content-type'] = rng.pick([
      'application/json',
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/json; charset=utf-16',
      'multipart/form-data',
    ]);
  return { method, path: `${contextPath}${path}${query(rng)}`, headers, body: b, mutating };
}
