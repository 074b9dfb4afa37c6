import type http from 'node:http';
import { inOrder, pathOf, type Step } from './step';

const req = (url: string) => ({ url }) as http.IncomingMessage;
const res = {} as http.ServerResponse;

describe('edge steps', () => {
  it('run in the order given, each passing on or answering', () => {
    const seen: string[] = [];
    const step =
      (name: string, answers = false): Step =>
      (_req, _res, next) => {
        seen.push(name);
        if (!answers) next();
      };
    inOrder([step('a'), step('b')], () => seen.push('last'))(req('/'), res);
    expect(seen).toEqual(['a', 'b', 'last']);
    seen.length = 0;
    inOrder([step('a', true), step('b')], () => seen.push('last'))(req('/'), res);
    expect(seen).toEqual(['a']);
  });

  it('read the path without the query string', () => {
    expect(pathOf(req('/api/x?a=1'))).toBe('/api/x');
    expect(pathOf(req('/graphql'))).toBe('/graphql');
  });
});
