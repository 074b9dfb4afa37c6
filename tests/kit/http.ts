// Responses are asserted field by field in tests; `any` as the default body type keeps them short.
/* eslint-disable @typescript-eslint/no-explicit-any */
export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface CallOptions {
  token?: string;
  apiKey?: string;
  headers?: Record<string, string>;
  /** Sent as-is instead of JSON-encoding `body`. */
  raw?: string;
}

/** A tiny HTTP client for black-box tests: JSON in, JSON out, status and headers kept. */
export function client(baseUrl: string, defaults: { headers?: Record<string, string> } = {}) {
  async function call<T = any>(method: string, path: string, body?: unknown, opts: CallOptions = {}) {
    // A socket per request: a kept-alive socket idle near the service's keep-alive timeout (5 s) can
    // be closed by the service as the client reuses it (ECONNRESET), more so on a loaded machine
    // where the client's own idle timer fires late.
    const headers: Record<string, string> = { connection: 'close', ...defaults.headers, ...opts.headers };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    if (opts.apiKey) headers['x-api-key'] = opts.apiKey;
    let payload: string | undefined = opts.raw;
    if (payload === undefined && body !== undefined) payload = JSON.stringify(body);
    if (payload !== undefined) headers['content-type'] ??= 'application/json';
    const res = await fetch(`${baseUrl}${path}`, { method, headers, body: payload });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text === '' ? null : JSON.parse(text);
    } catch {
      /* not JSON: keep the text */
    }
    return { status: res.status, headers: res.headers, body: parsed as T } satisfies ApiResponse<T>;
  }
  return {
    get: <T = any>(path: string, opts?: CallOptions) => call<T>('GET', path, undefined, opts),
    post: <T = any>(path: string, body?: unknown, opts?: CallOptions) => call<T>('POST', path, body, opts),
    del: <T = any>(path: string, opts?: CallOptions) => call<T>('DELETE', path, undefined, opts),
    call,
    /** A GraphQL operation over HTTP POST /graphql. */
    graphql: (query: string, variables?: Record<string, unknown>, opts?: CallOptions) =>
      call('POST', '/graphql', { query, variables }, opts),
  };
}

export type Client = ReturnType<typeof client>;
