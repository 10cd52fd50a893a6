import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { SvcError, isSvcError } from '../../errors/svc-error.js';
import { DEFAULT_EXPORT_MAX, MAX_EXPORT } from '../../query/export.js';
import type { EventJson, ExportHead, ExportSink } from '../../query/types.js';
import { VERSION } from '../../version.js';
import { principalOf } from '../../http-kit/access.js';
import { intParam } from '../../http-kit/schema/params.js';
import {
  EVENT_COLUMNS,
  csvLine,
  eventCsv,
  eventNdjson,
  exportFileName,
  rowCsv,
  rowNdjson,
  type ExportFormat,
} from './export-encode.js';
import { refuseWrites, searchParams, searchQuery, withCancel } from './search-params.js';

// every search parameter is checked as on a search (a bad limit is a 400 naming it, as before);
// the export reads q, env, index, from and to, and takes its size from max
const exportQuery = searchQuery.extend({
  format: z.enum(['csv', 'ndjson'], { errorMap: () => ({ message: 'must be "csv" or "ndjson"' }) }),
  max: intParam(1, MAX_EXPORT, `events or rows at most (default ${DEFAULT_EXPORT_MAX})`),
});

/**
 * The HTTP end of an export: headers go out with the first rows (so an error before them is a
 * normal JSON error with its status), each chunk is encoded and written, and the export waits for
 * 'drain' whenever the socket's buffer is full. A client that reads nothing for
 * SVC_REQUEST_TIMEOUT_SECS (what a client sending a request may take, applied to reading the
 * answer) is cut off: it would otherwise hold a DuckDB connection and keep blocks from merge and
 * retention for as long as it likes.
 */
class HttpExportSink implements ExportSink {
  started = false;
  private fields: string[] = [];
  private columns: string[] = [];

  constructor(
    private readonly reply: FastifyReply,
    private readonly format: ExportFormat,
    private readonly headers: Record<string, string>,
    private readonly stallMs: number,
  ) {}

  async begin(head: ExportHead): Promise<void> {
    this.started = true;
    this.reply.hijack();
    this.reply.raw.writeHead(200, this.headers);
    if (head.mode === 'table') this.columns = head.columns;
    else this.fields = head.fields ?? [];
    if (this.format !== 'csv') return;
    await this.write(csvLine(head.mode === 'table' ? head.columns : [...EVENT_COLUMNS, ...this.fields]));
  }

  events(batch: EventJson[]): Promise<void> {
    return this.write(batch.map((e) => (this.format === 'csv' ? eventCsv(e, this.fields) : eventNdjson(e))).join(''));
  }

  rows(batch: unknown[][]): Promise<void> {
    return this.write(batch.map((r) => (this.format === 'csv' ? rowCsv(r) : rowNdjson(this.columns, r))).join(''));
  }

  private async write(text: string): Promise<void> {
    const res = this.reply.raw;
    if (res.destroyed) throw new SvcError('request_cancelled', 'the client closed the connection');
    if (!res.write(text)) await drained(res, this.stallMs);
  }
}

/** Resolves on 'drain'; rejects when the client goes away, or reads nothing for `stallMs` (then cut off). */
function drained(res: ServerResponse, stallMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = (err?: Error) => {
      clearTimeout(timer);
      res.off('drain', onDrain);
      res.off('close', onClose);
      if (err) reject(err);
      else resolve();
    };
    const onDrain = () => done();
    const onClose = () => done(new SvcError('request_cancelled', 'the client closed the connection'));
    const timer = setTimeout(() => {
      done(
        new SvcError('request_cancelled', `the client read nothing for ${stallMs / 1000} s; the export was stopped`),
      );
      res.destroy();
    }, stallMs);
    res.on('drain', onDrain);
    res.once('close', onClose);
  });
}

/**
 * GET /api/export: a search's results as a CSV or NDJSON download, streamed (query/export.ts).
 * Parameters: those of /api/search (q, env, index, from, to), format (csv | ndjson), max (default
 * 100,000, at most 1,000,000).
 */
export async function exportRoutes(app: FastifyInstance): Promise<void> {
  // no automatic HEAD route: it would run the whole export to send nothing
  app.get(
    '/api/export',
    {
      config: { access: 'standard', audit: { action: 'export' } },
      exposeHeadRoute: false,
      schema: {
        summary: "a search's results as a CSV or NDJSON download, streamed",
        tags: ['search'],
        querystring: exportQuery,
        produces: ['text/csv', 'application/x-ndjson'],
        errors: [429, 503],
      },
    },
    async (request: FastifyRequest, reply: FastifyReply) => {
      const { q, env, index, from, to, writes } = searchParams(request);
      refuseWrites({ writes }, '/api/export');
      const { format, max } = request.query as z.output<typeof exportQuery>;
      const limit = max ?? DEFAULT_EXPORT_MAX;
      const headers = {
        'Content-Type': format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson',
        'Content-Disposition': `attachment; filename="${exportFileName(app.deps.clock.now(), format)}"`,
        'X-Svc-Export-Max': String(limit),
        'Cache-Control': 'no-store',
        'X-Content-Type-Options': 'nosniff',
        'X-Svc-Version': VERSION,
      };
      const sink = new HttpExportSink(reply, format, headers, app.deps.config.requestTimeoutSecs * 1000);
      const req = withCancel({ q, env, index, from, to, max: limit, fieldList: format === 'csv' }, reply);
      try {
        const summary = await app.deps.search.export(principalOf(request), req, sink);
        request.auditRows = summary.written;
        reply.raw.end();
      } catch (e) {
        if (!sink.started) throw e;
        // the status line is gone: cutting the connection short is how a client learns the file is incomplete
        if (!(isSvcError(e) && e.code === 'request_cancelled'))
          request.log.error({ err: e, reqId: request.id }, 'export failed while streaming');
        reply.raw.destroy();
      }
      return reply;
    },
  );
}
