import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { JobLogFile } from '@tideway/contracts';
import { parseJobLogName, readLocalJobLogs } from '@tideway/common';
import type { JobApi } from '../job-api.js';
import { BadRequest, failBody } from '../rest-errors.js';

/** The newest lines a log file's page shows (the gRPC answer stays small). */
const FILE_LINES = 5000;

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The absolute link of a log file, as the browser reaches this REST API. */
function linkOf(req: FastifyRequest, prefix: string, logName: string): string {
  return `${req.protocol}://${req.host}${prefix}/logs/${encodeURIComponent(logName)}`;
}

/** SeaTunnel's HTML page of log links. */
function linksPage(links: Array<{ href: string; text: string }>): string {
  const items = links.map((l) => `<li><a href="${escapeHtml(l.href)}">${escapeHtml(l.text)}</a></li>`).join('\n');
  return `<html><head><meta charset="utf-8"><title>Tideway logs</title></head><body><ul>\n${items}\n</ul></body></html>`;
}

/** SeaTunnel's `format` query: html (default) or json. */
function wantsJson(format: string | undefined): boolean {
  const f = (format ?? 'html').toLowerCase();
  if (f !== 'html' && f !== 'json') throw new BadRequest(`format '${format}' is not one of html, json`);
  return f === 'json';
}

/**
 * SeaTunnel's log endpoints over Tideway's per-job logs (docs/logs.md):
 * - GET /logs, /logs/:jobId: the job log files of every node (coordinators and workers) the
 *   caller may see, as HTML links, or with ?format=json as `[{node, logLink, logName}]`;
 * - GET /logs/:logName (a name ending in .log): that file's lines, the newest 5000, as text;
 * - GET /log: the files of the process serving this API; /log/:logName: one of them.
 * A viewer's token lists its namespace's jobs only, and reading another's file is refused (403).
 */
export function registerLogRoutes(app: FastifyInstance, jobs: JobApi, prefix: string): void {
  const list = async (
    req: FastifyRequest<{ Querystring: { format?: string } }>,
    reply: FastifyReply,
    jobId: string,
    localOnly: boolean,
  ) => {
    const json = wantsJson(req.query.format);
    let files = (await jobs.logs({ jobId })).files;
    if (localOnly) {
      const here = new Set(readLocalJobLogs({ jobId: '', minLevel: '', sinceMs: 0, maxLines: 0 }).files.map((f) => f.logName));
      files = files.filter((f) => here.has(f.logName));
    }
    const entries = files.map((f) => ({ node: f.node, logLink: linkOf(req, prefix, f.logName), logName: f.logName }));
    if (json) return entries;
    void reply.type('text/html; charset=utf-8');
    return linksPage(entries.map((e) => ({ href: e.logLink, text: `${e.node}-${e.logName}` })));
  };
  const content = async (reply: FastifyReply, logName: string) => {
    const parsed = parseJobLogName(logName);
    if (!parsed) throw new BadRequest(`'${logName}' is not a job log name: expected job-<jobId>-<role>-<node>.log`);
    // The coordinator checks the caller's namespace and names the file's node.
    const { files } = await jobs.logs({ jobId: parsed.jobId });
    const file: JobLogFile | undefined = files.find((f) => f.logName === logName);
    if (!file) return reply.code(404).send(failBody(`no log ${logName}: job ${parsed.jobId} has no such file on any node that answered`));
    const { lines } = await jobs.logs({ jobId: parsed.jobId, node: file.node, maxLines: FILE_LINES });
    void reply.type('text/plain; charset=utf-8');
    return lines.map((l) => `${l.line}\n`).join('');
  };
  app.get<{ Querystring: { format?: string } }>('/logs', (req, reply) => list(req, reply, '', false));
  app.get<{ Querystring: { format?: string } }>('/log', (req, reply) => list(req, reply, '', true));
  app.get<{ Params: { name: string }; Querystring: { format?: string } }>('/logs/:name', (req, reply) => {
    const name = req.params.name;
    if (name.endsWith('.log')) return content(reply, name);
    if (!/^\d+$/.test(name)) throw new BadRequest(`'${name}' is neither a job id (digits) nor a log name (ending in .log)`);
    return list(req, reply, name, false);
  });
  app.get<{ Params: { name: string } }>('/log/:name', async (req, reply) => {
    const here = readLocalJobLogs({ jobId: '', minLevel: '', sinceMs: 0, maxLines: 0 }).files;
    if (!here.some((f) => f.logName === req.params.name)) return reply.code(404).send(failBody(`no log ${req.params.name} on this node`));
    return content(reply, req.params.name);
  });
}
