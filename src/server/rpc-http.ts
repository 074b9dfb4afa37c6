import type http from 'node:http';
import type { RequestContext } from '../auth/request-context';
import { MAX_BODY_BYTES } from '../rest/rest-api';
import { readPlainBody } from '../rest/direct-route';
import { endTogether } from '../rest/answer-batch';
import { jsonRpcCodeOf } from '../kernel/errors/error-codes';
import type { PublicError } from '../kernel/errors/error-map';
import type { ErrorFaces } from './error-faces';
import type { RequestContexts } from './request-contexts';
import { BODY_TOO_LARGE } from './with-body-limit';
import type { BeginRequest } from './with-request-id';
import { rpcPathOf } from './rpc-path';
import { pathOf, type Step } from './step';

export interface RpcDoorAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface RpcHttpOptions {
  /**
   * Answers one request's body (`parsed: false`: not JSON) on `network` as the path names it; at
   * once when nothing needs waiting for (a read the cache holds).
   */
  answer: (
    network: string,
    body: unknown,
    parsed: boolean,
    ctx: RequestContext,
  ) => RpcDoorAnswer | Promise<RpcDoorAnswer>;
  contexts: RequestContexts;
  errors: ErrorFaces;
  begin: BeginRequest;
}

const jsonRpcError = (code: number, message: string) => ({ jsonrpc: '2.0', id: null, error: { code, message } });

function write(res: http.ServerResponse, status: number, body: unknown, headers?: Record<string, string>): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  if (headers) for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('content-length', Buffer.byteLength(text));
  endTogether(res, text);
}

/** A refusal of the edge (429 over a limit) in JSON-RPC's words: error -32005, `id` null. */
export function sendJsonRpcRefusal(res: http.ServerResponse, e: PublicError): void {
  write(res, e.status, jsonRpcError(jsonRpcCodeOf(e.code), e.message), e.headers);
}

/**
 * Step: the JSON-RPC door over HTTP. A POST to a door path is read (1 MiB, uncompressed) and
 * answered here in JSON-RPC's words, errors included; any other method on a door path is 405.
 */
export function withRpcDoor(opts: RpcHttpOptions): Step {
  return (req, res, next) => {
    const path = pathOf(req);
    const door = rpcPathOf(path);
    if (!door) return next();
    const requestId = opts.begin(req, res, path);
    if (req.method !== 'POST') {
      req.resume();
      return write(res, 405, jsonRpcError(-32600, 'JSON-RPC requests are POSTed'), { Allow: 'POST, OPTIONS' });
    }
    const encoding = req.headers['content-encoding'];
    if (encoding !== undefined && encoding.toLowerCase() !== 'identity') {
      req.resume();
      return write(res, 415, jsonRpcError(-32600, 'the request body must not be compressed'));
    }
    readPlainBody(req, res, { maxBody: MAX_BODY_BYTES, tooLarge: BODY_TOO_LARGE }, (raw) => {
      let body: unknown;
      let parsed = true;
      try {
        body = JSON.parse(raw === undefined ? '' : raw.toString('utf8'));
      } catch {
        parsed = false;
      }
      const failed = (err: unknown) => {
        const e = opts.errors.publicError(err, requestId);
        write(res, e.status, jsonRpcError(-32603, e.message), e.headers);
      };
      let answer: RpcDoorAnswer | Promise<RpcDoorAnswer>;
      try {
        answer = opts.answer(door.network, body, parsed, opts.contexts.forHttp(requestId, req));
      } catch (err) {
        return failed(err);
      }
      if (answer instanceof Promise) answer.then((a) => write(res, a.status, a.body, a.headers), failed);
      else write(res, answer.status, answer.body, answer.headers);
    });
  };
}
