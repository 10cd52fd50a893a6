import http from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { errorBody } from '../http-kit/errors.js';
import { SvcError } from '../errors/svc-error.js';

/**
 * Answers a request Node could not parse, before Fastify sees it (its `clientErrorHandler`), in
 * svc's JSON error shape with a message that names the problem: headers over Node's limit (431,
 * typically a long query in a GET URL: POST it instead), a request sent too slowly (408), anything
 * else malformed (400 naming the parser's reason). The connection is closed after the answer.
 */
export function answerClientError(this: FastifyInstance, err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, e] = clientError(err);
  const body = JSON.stringify(errorBody(e));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

function clientError(err: NodeJS.ErrnoException): [number, SvcError] {
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    const kib = Math.round(http.maxHeaderSize / 1024);
    return [
      431,
      new SvcError(
        'headers_too_large',
        `the request line and headers are larger than ${kib} KiB: send a long query in a JSON body to POST /api/search (or /api/histogram, /api/fields), which take the same parameters, instead of in the URL`,
      ),
    ];
  }
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return [408, new SvcError('invalid_input', 'the request was not received in time (SVC_REQUEST_TIMEOUT_SECS)')];
  return [
    400,
    new SvcError(
      'invalid_input',
      `cannot parse the HTTP request: ${err.code ?? 'malformed'}${'reason' in err && typeof err.reason === 'string' ? ` (${err.reason})` : ''}`,
    ),
  ];
}
