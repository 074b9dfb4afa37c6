import type http from 'node:http';
import type { RequestContext } from '../auth/request-context';
import type { PublicError } from '../kernel/errors/error-map';
import { endTogether } from '../rest/answer-batch';
import type { DirectReply } from '../rest/direct-route';
import { MAX_BODY_BYTES } from '../rest/rest-api';
import type { ErrorFaces } from './error-faces';
import type { RequestContexts } from './request-contexts';
import type { BeginRequest } from './with-request-id';
import { pathOf, type Step } from './step';

/** `/api/explorer/etherscan/{network}/api` and `/api/explorer/etherscan/api` (docs/api.md, "Etherscan-compatible API"). */
const ETHERSCAN_PATH = /^\/api\/explorer\/etherscan(?:\/([^/]+))?\/api\/?$/;
export const ETHERSCAN_PREFIX = '/api/explorer/etherscan/';

export interface EtherscanHttpOptions {
  /** Answers the merged query and form parameters, written as is; `network` is the path's, null on the shared base URL. */
  answer: (network: string | null, params: Record<string, string>, ctx: RequestContext) => Promise<DirectReply>;
  contexts: RequestContexts;
  errors: ErrorFaces;
  begin: BeginRequest;
}

/** The network segment of an Etherscan path (null: the shared one), or undefined when `path` is none. */
export function etherscanPathOf(path: string): { network: string | null } | undefined {
  if (!path.startsWith(ETHERSCAN_PREFIX)) return undefined;
  const m = ETHERSCAN_PATH.exec(path);
  return m ? { network: m[1] ?? null } : undefined;
}

function write(res: http.ServerResponse, status: number, body: unknown, headers?: Record<string, string>): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  if (headers) for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('content-length', Buffer.byteLength(text));
  endTogether(res, text);
}

const refusal = (result: string) => ({ status: '0', message: 'NOTOK', result });

/** A refusal of the edge (429 over a limit) in Etherscan's words, with its Retry-After. */
export function sendEtherscanRefusal(res: http.ServerResponse, e: PublicError): void {
  const result = e.status === 429 ? `Max rate limit reached: ${e.message}` : e.message;
  write(res, e.status, refusal(result), e.headers);
}

/** Query parameters, then form parameters over them (forge puts `chainid` in the URL and the rest in the form). */
function parametersOf(req: http.IncomingMessage, body: string | undefined): Record<string, string> {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const params: Record<string, string> = Object.create(null) as Record<string, string>;
  const add = (search: URLSearchParams) => {
    for (const [k, v] of search) params[k] = v;
  };
  if (q !== -1) add(new URLSearchParams(url.slice(q + 1)));
  if (body !== undefined && body.length > 0) add(new URLSearchParams(body));
  return params;
}

/**
 * Step: the Etherscan-compatible API. GET and form POST, always HTTP 200 with `{status, message,
 * result}` (a body over 1 MiB too), never the REST error body.
 */
export function withEtherscan(opts: EtherscanHttpOptions): Step {
  return (req, res, next) => {
    const path = pathOf(req);
    const match = etherscanPathOf(path);
    if (!match) return next();
    const requestId = opts.begin(req, res, path);
    const respond = (body: string | undefined) => {
      const ctx = opts.contexts.forHttp(requestId, req);
      opts.answer(match.network, parametersOf(req, body), ctx).then(
        (a) => write(res, a.status, a.body, a.headers),
        (err: unknown) => {
          const e = opts.errors.publicError(err, requestId);
          write(res, 200, refusal(e.message));
        },
      );
    };
    if (req.method !== 'POST') {
      req.resume();
      return respond(undefined);
    }
    const encoding = req.headers['content-encoding'];
    if (encoding !== undefined && encoding.toLowerCase() !== 'identity') {
      req.resume();
      return write(res, 200, refusal('the request body must not be compressed'));
    }
    if (Number(req.headers['content-length']) > MAX_BODY_BYTES) {
      req.resume();
      return write(res, 200, refusal(`the request body is over ${MAX_BODY_BYTES} bytes`));
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    req.on('data', (chunk: Buffer) => {
      if (refused) return;
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        refused = true;
        write(res, 200, refusal(`the request body is over ${MAX_BODY_BYTES} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (refused) return;
      const type = (req.headers['content-type'] ?? '').toLowerCase();
      // Form bodies only; a JSON or other body is not read as parameters.
      respond(
        type.startsWith('application/x-www-form-urlencoded') ? Buffer.concat(chunks).toString('utf8') : undefined,
      );
    });
  };
}
