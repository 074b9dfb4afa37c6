import { Writable } from 'node:stream';
import { QueryFailedError } from 'typeorm';
import { createLogger } from './logger';

describe('logger', () => {
  it('never writes the parameters of a failed SQL query', () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const driverError = Object.assign(new Error('duplicate key value violates unique constraint'), {
      code: '23505',
      detail: 'Key (key_hash)=(secret-hash-value) already exists.',
    });
    const err = new QueryFailedError('INSERT INTO api_keys (key_hash) VALUES ($1)', ['secret-hash-value'], driverError);
    createLogger('info', sink).error({ err }, 'unexpected error');
    const line = lines.join('');
    expect(line).toContain('INSERT INTO api_keys');
    expect(line).toContain('23505');
    expect(line).not.toContain('secret-hash-value');
  });
});
