/**
 * The same streaming job on SeaTunnel itself (the pinned oracle, its REST API on its master's
 * Hazelcast port; the cluster test/seatunnel/seatunnel.test.ts starts once for its file) and on
 * Tideway (its REST API v2): every field SeaTunnel's answers carry is in
 * Tideway's with the same JSON type, field by field, for a running job, the running-jobs list,
 * the same job once cancelled, the finished-jobs list, the overview and the system monitoring.
 * What differs on purpose is listed here and in docs/rest-api.md.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, type SeaTunnelCluster } from '@tideway/testing';
import { TestCluster } from '../cluster/test-cluster.js';
import { TABLE_MAPS, type UiJob } from './ui-fields.js';

/** A value's JSON shape: its type, an object's keys with theirs, an array's first element's. */
type Shape = string | Shape[] | { [key: string]: Shape };

function shapeOf(v: unknown): Shape {
  if (v === null) return 'null';
  if (Array.isArray(v)) return v.length > 0 ? [shapeOf(v[0])] : [];
  if (typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, shapeOf(x)]));
  return typeof v;
}

/** Where `ours` lacks a field of `oracle`, or has it with another type: one line each, by path. */
function differences(oracle: Shape, ours: Shape | undefined, path = ''): string[] {
  if (ours === undefined) return [`${path}: missing`];
  if (typeof oracle === 'string' || typeof ours === 'string')
    return oracle === ours ? [] : [`${path}: ${JSON.stringify(oracle)} here ${JSON.stringify(ours)}`];
  if (Array.isArray(oracle) || Array.isArray(ours)) {
    if (!Array.isArray(oracle) || !Array.isArray(ours)) return [`${path}: ${JSON.stringify(oracle)} here ${JSON.stringify(ours)}`];
    return oracle.length > 0 && ours.length > 0 ? differences(oracle[0], ours[0], `${path}[]`) : [];
  }
  return Object.keys(oracle).flatMap((k) => differences(oracle[k], ours[k], path ? `${path}.${k}` : k));
}

/**
 * What Tideway answers otherwise, on purpose (docs/rest-api.md): an ended job's jobDag is an
 * object, where SeaTunnel 2.3.8 sends it as JSON text (its later releases and their web UI read an
 * object).
 */
const ENDED_DAG = /^jobDag: "string" here \{/;

/** SeaTunnel 2.3.8's jobDag of a running job: its logical DAG. */
interface LogicalDag {
  vertices: Array<{ name: string }>;
  edges: Array<{ inputVertex: string; targetVertex: string }>;
}

/** Hazelcast's own figures of a member, which have no counterpart in Tideway. */
const HAZELCAST_ONLY =
  /^(executor\.q\.|operations\.|event\.q\.|proxy\.|clientEndpoint\.|connection\.|client\.connection\.|cluster\.timeDiff|native\.|unknown\.gc\.)/;

/** The job of both engines, in SeaTunnel 2.3.8's option names. */
const job = {
  env: { 'job.mode': 'STREAMING', parallelism: 1, 'checkpoint.interval': 2000 },
  source: [
    {
      plugin_name: 'FakeSource',
      result_table_name: 'users',
      'row.num': 1000,
      'split.num': 1000,
      'split.read-interval': 300,
      schema: { table: 'shop.users', fields: { id: 'int', name: 'string' } },
    },
  ],
  sink: [{ plugin_name: 'Console', source_table_name: 'users', 'log.print.data': false }],
};

/** The comparison, inside a describe whose SeaTunnel cluster `oracle` gives once it has started. */
export function restAnswersFieldByField(oracle: () => SeaTunnelCluster): void {
  describe("SeaTunnel's REST answers and Tideway's, field by field", () => {
    let tideway: TestCluster;
    let theirs = '';
    let ours = '';
    const ids = { theirs: '', ours: '' };

    beforeAll(async () => {
      const port = await freePort();
      tideway = await TestCluster.start({
        workers: [{ attributes: {} }],
        slotNum: 2,
        jobScheduleStrategy: 'WAIT',
        engineYaml: ['http:', '  enable-http: true', `  port: ${port}`, '  enable-dynamic-port: false'],
      });
      theirs = `http://127.0.0.1:${oracle().masterPort}/hazelcast/rest/maps`;
      ours = `http://127.0.0.1:${port}`;
    }, 240_000);

    afterAll(async () => {
      await tideway?.stop();
    });

    const get = async <T>(base: string, path: string): Promise<T> => (await (await fetch(`${base}${path}`)).json()) as T;
    const post = async <T>(base: string, path: string, body: unknown): Promise<T> => {
      const res = await fetch(`${base}${path}`, {
        method: 'POST',
        body: JSON.stringify(body),
        headers: { 'content-type': 'application/json' },
      });
      const text = await res.text();
      expect(res.status, `${base}${path}: ${text}`).toBe(200);
      return JSON.parse(text) as T;
    };
    const both = async <T>(path: (id: string) => string): Promise<{ theirs: T; ours: T }> => ({
      theirs: await get<T>(theirs, path(ids.theirs)),
      ours: await get<T>(ours, path(ids.ours)),
    });
    const untilBoth = (what: string, check: (job: UiJob) => boolean) =>
      tideway.until(
        what,
        async () => {
          const { theirs: a, ours: b } = await both<UiJob>((id) => `/job-info/${id}`);
          return check(a) && check(b);
        },
        90_000,
      );

    it('a running job: /job-info and /running-jobs', async () => {
      ids.theirs = (await post<{ jobId: string }>(theirs, '/submit-job?jobName=oracle', job)).jobId;
      ids.ours = (await post<{ jobId: string }>(ours, '/submit-job?jobName=oracle', job)).jobId;
      await untilBoth(
        'both running with rows read and written',
        (j) => j.jobStatus === 'RUNNING' && Number(j.metrics?.TableSinkWriteCount?.['shop.users']) > 0,
      );
      const info = await both<UiJob>((id) => `/job-info/${id}`);
      expect(differences(shapeOf(info.theirs), shapeOf(info.ours))).toEqual([]);
      // The same tables under the same names, on both sides, in every map.
      for (const map of TABLE_MAPS) expect(Object.keys(info.ours.metrics[map]), map).toEqual(Object.keys(info.theirs.metrics[map]));
      // SeaTunnel 2.3.8's running jobDag is its logical DAG: the same vertices and edges by name.
      const dagOf = async (base: string, id: string) => (await get<{ jobDag: LogicalDag }>(base, `/job-info/${id}`)).jobDag;
      const [a, b] = [await dagOf(theirs, ids.theirs), await dagOf(ours, ids.ours)];
      expect(b.vertices.map((v) => v.name.replace(/\(id=\d+\)$/, '').replace(/-MultiTableSink$/, ''))).toEqual(
        a.vertices.map((v) => v.name.replace(/\(id=\d+\)$/, '').replace(/-MultiTableSink$/, '')),
      );
      expect(b.edges).toHaveLength(a.edges.length);
      const running = { theirs: await get<UiJob[]>(theirs, '/running-jobs'), ours: await get<UiJob[]>(ours, '/running-jobs') };
      expect(differences(shapeOf(running.theirs), shapeOf(running.ours))).toEqual([]);
    }, 120_000);

    it('the job cancelled: /job-info and /finished-jobs', async () => {
      await post(theirs, '/stop-job', { jobId: ids.theirs, isStopWithSavePoint: false });
      await post(ours, '/stop-job', { jobId: ids.ours, isStopWithSavePoint: false });
      await untilBoth('both cancelled', (j) => j.jobStatus === 'CANCELED');
      const info = await both<UiJob>((id) => `/job-info/${id}`);
      const ended = differences(shapeOf(info.theirs), shapeOf(info.ours));
      expect(ended).toHaveLength(1);
      expect(ended[0]).toMatch(ENDED_DAG);
      // What SeaTunnel 2.3.8 writes as text, Tideway sends as the object it says.
      const dag = JSON.parse(info.theirs.jobDag as unknown as string) as { pipelineEdges: object; vertexInfoMap: object };
      expect(Object.keys(info.ours.jobDag.pipelineEdges)).toEqual(Object.keys(dag.pipelineEdges));
      expect(info.ours.jobDag.vertexInfoMap).toHaveLength(Object.keys(dag.vertexInfoMap).length);
      for (const map of TABLE_MAPS) expect(Object.keys(info.ours.metrics[map]), map).toEqual(Object.keys(info.theirs.metrics[map]));
      // Only this job's entries: the oracle's cluster lists the other suites' jobs too (batch
      // jobs, failed ones), whose shapes differ from a cancelled streaming job's.
      const mine = (list: UiJob[], id: string) => list.filter((j) => String(j.jobId) === String(id));
      const finished = {
        theirs: mine(await get<UiJob[]>(theirs, '/finished-jobs'), ids.theirs),
        ours: mine(await get<UiJob[]>(ours, '/finished-jobs'), ids.ours),
      };
      expect([finished.theirs.length, finished.ours.length]).toEqual([1, 1]);
      const listed = differences(shapeOf(finished.theirs), shapeOf(finished.ours));
      expect(listed).toHaveLength(1);
      expect(listed[0].replace(/^\[\]\./, '')).toMatch(ENDED_DAG);
    }, 120_000);

    it('/overview and /system-monitoring-information', async () => {
      const overview = { theirs: await get<object>(theirs, '/overview'), ours: await get<object>(ours, '/overview') };
      expect(differences(shapeOf(overview.theirs), shapeOf(overview.ours))).toEqual([]);
      const members = {
        theirs: await get<Array<Record<string, string>>>(theirs, '/system-monitoring-information'),
        ours: await get<Array<Record<string, string>>>(ours, '/system-monitoring-information'),
      };
      const master = (list: Array<Record<string, string>>) => list.find((m) => m.isMaster === 'true')!;
      const ourKeys = new Set(Object.keys(master(members.ours)));
      const lacking = Object.keys(master(members.theirs)).filter((k) => !ourKeys.has(k) && !HAZELCAST_ONLY.test(k));
      expect(lacking).toEqual([]);
      expect(members.ours.map((m) => m.isMaster).sort()).toEqual(members.theirs.map((m) => m.isMaster).sort());
    }, 60_000);
  });
}
