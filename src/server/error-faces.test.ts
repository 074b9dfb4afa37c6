import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { AppError } from '../kernel/errors/app-error';
import { createLogger } from '../kernel/logger';
import { errorFaces } from './error-faces';
import { Metrics } from './metrics';

function faces() {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  const metrics = new Metrics();
  const unexpected = async () => (await metrics.unexpectedErrors.get()).values[0]?.value ?? 0;
  return { errors: errorFaces(metrics, createLogger('info', sink)), lines, unexpected };
}

describe('error faces', () => {
  it('answers an unexpected error as a bare INTERNAL on every face, counted and logged with the request id', async () => {
    const { errors, lines, unexpected } = faces();
    const boom = () => new Error('secret detail of a bug');
    expect(errors.publicError(boom(), 'r-http')).toEqual({
      status: 500,
      code: 'INTERNAL',
      message: 'Internal server error',
      details: undefined,
      headers: undefined,
    });
    expect(errors.graphql(boom(), 'r-gql')).toEqual({
      message: 'Internal server error',
      extensions: { code: 'INTERNAL', requestId: 'r-gql' },
    });
    const ws = errors.ws(boom(), 'r-ws');
    expect([ws.message, ws.extensions]).toEqual(['Internal server error', { code: 'INTERNAL', requestId: 'r-ws' }]);
    expect(await unexpected()).toBe(3);
    expect(lines.map((l) => [l.msg, l.requestId])).toEqual([
      ['unexpected error', 'r-http'],
      ['unexpected error', 'r-gql'],
      ['unexpected error', 'r-ws'],
    ]);
    expect(JSON.stringify(lines)).toContain('secret detail of a bug');
  });

  it('maps a known error by the one table on every face, without counting it', async () => {
    const { errors, unexpected } = faces();
    const limited = new AppError('RATE_LIMITED', 'Too many requests', undefined, { 'Retry-After': '1' });
    expect(errors.publicError(limited, 'r')).toMatchObject({
      status: 429,
      code: 'RATE_LIMITED',
      headers: { 'Retry-After': '1' },
    });
    expect(errors.graphql(limited, 'r').extensions).toEqual({ code: 'RATE_LIMITED', requestId: 'r' });
    expect(errors.ws(limited, 'r').extensions).toEqual({ code: 'RATE_LIMITED', requestId: 'r' });
    expect(await unexpected()).toBe(0);
  });

  it('writes the HTTP JSON error and the GraphQL errors answer with their status, headers and body', async () => {
    const { errors } = faces();
    const server = http.createServer((req, res) => {
      const e = errors.publicError(
        new AppError('RATE_LIMITED', 'Too many requests', undefined, { 'Retry-After': '3' }),
        'r',
      );
      if (req.url === '/graphql') errors.sendGraphQL(res, [errors.graphqlOf(e, 'r')], e.headers);
      else if (req.url === '/graphql-refused') errors.sendGraphQLRefusal(res, e, 'r');
      else errors.http(res, e);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const rest = await fetch(`${url}/api/x`);
      expect([rest.status, rest.headers.get('retry-after'), rest.headers.get('content-type')]).toEqual([
        429,
        '3',
        'application/json; charset=utf-8',
      ]);
      expect(await rest.json()).toEqual({ error: { code: 'RATE_LIMITED', message: 'Too many requests' } });
      const graphql = await fetch(`${url}/graphql`);
      expect([graphql.status, graphql.headers.get('retry-after')]).toEqual([200, '3']);
      expect(await graphql.json()).toEqual({
        errors: [{ message: 'Too many requests', extensions: { code: 'RATE_LIMITED', requestId: 'r' } }],
      });
      // A request refused before it is read as GraphQL: the error's own status, GraphQL's body.
      const refused = await fetch(`${url}/graphql-refused`);
      expect([refused.status, refused.headers.get('retry-after'), refused.headers.get('content-type')]).toEqual([
        429,
        '3',
        'application/json; charset=utf-8',
      ]);
      expect(await refused.json()).toEqual({
        errors: [{ message: 'Too many requests', extensions: { code: 'RATE_LIMITED', requestId: 'r' } }],
      });
    } finally {
      server.close();
    }
  });
});
