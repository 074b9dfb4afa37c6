import { QueryRunnerAlreadyReleasedError } from 'typeorm';
import { AppError } from './app-error';
import { isDatabaseDown, toPublicError } from './error-map';

const coded = (message: string, code?: string) => Object.assign(new Error(message), code ? { code } : {});

describe('toPublicError: an unreachable database', () => {
  it.each([
    ['a refused connection', coded('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
    ['a server shutting down', coded('terminating connection due to administrator command', '57P01')],
    ['a server starting up', coded('the database system is starting up', '57P03')],
    ['a crash shutdown', coded('terminating connection because of crash of another server process', '57P02')],
    ['a socket written after the server left', coded('write EPIPE', 'EPIPE')],
    ['a dropped connection', coded('Connection terminated unexpectedly')],
    ['a client used after it ended', coded('Client was closed and is not queryable')],
    ['a transaction whose connection failed before its COMMIT', new QueryRunnerAlreadyReleasedError()],
    ['the same, as the cause of another error', new Error('could not record', { cause: coded('x', '57P01') })],
  ])('answers 503 SERVICE_UNAVAILABLE with Retry-After for %s, and logs nothing', (_label, error) => {
    const unexpected: unknown[] = [];
    const e = toPublicError(error, (x) => unexpected.push(x));
    expect(e).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE', headers: { 'Retry-After': '5' } });
    expect(unexpected).toEqual([]);
  });

  it('keeps other errors as they are: typed ones by their code, unknown ones a logged 500', () => {
    expect(isDatabaseDown(coded('duplicate key value violates unique constraint', '23505'))).toBe(false);
    expect(toPublicError(new AppError('NOT_FOUND', 'No such contract'), () => undefined)).toMatchObject({
      status: 404,
      code: 'NOT_FOUND',
    });
    const unexpected: unknown[] = [];
    expect(toPublicError(new Error('boom'), (x) => unexpected.push(x))).toMatchObject({
      status: 500,
      code: 'INTERNAL',
    });
    expect(unexpected).toHaveLength(1);
  });
});
