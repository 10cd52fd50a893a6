import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * MCP's edge: the answers svc writes itself on /mcp (the SDK's transport writes the rest). JSON-RPC
 * error bodies with the HTTP status the Streamable HTTP transport would use.
 */

/** GET and DELETE: there is no session and no server-initiated stream. */
export function methodNotAllowed(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return reply
    .code(405)
    .header('Allow', 'POST')
    .type('application/json')
    .send({
      jsonrpc: '2.0',
      error: {
        code: -32000,
        message: `method ${request.method} not allowed: svc's MCP endpoint is stateless, use POST`,
      },
      id: null,
    });
}

/** A failure after the transport took the raw response over: a JSON-RPC internal error, if nothing was sent yet. */
export function internalError(reply: FastifyReply): void {
  if (reply.raw.headersSent) return;
  reply.raw.writeHead(500, { 'Content-Type': 'application/json' });
  reply.raw.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'internal error' }, id: null }));
}
