import { dataAnswerInTurns, withJsonText } from './json-text';

const bytesOf = (answer: string | Buffer[]): Buffer =>
  typeof answer === 'string' ? Buffer.from(answer) : Buffer.concat(answer);

describe('dataAnswerInTurns', () => {
  it('writes the bytes JSON.stringify writes, small and large, names and values escaped', async () => {
    const big = 'é"\\\n'.repeat(40_000);
    const cases: Array<Record<string, unknown>> = [
      {},
      { a: 1 },
      { 'we"ird\u2028': { x: [null, true, 'ü'] }, b: null },
      { t0: { input: big }, t1: { input: big }, small: 'x' },
      Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`f${i}`, { n: i, s: 'y'.repeat(500) }])),
      { gone: undefined, kept: 2 },
    ];
    for (const data of cases) {
      expect(bytesOf(await dataAnswerInTurns(data)).toString('utf8')).toBe(`${JSON.stringify({ data })}\n`);
    }
  });

  it('answers a small answer as one string', async () => {
    expect(await dataAnswerInTurns({ a: { b: 'c' } })).toBe('{"data":{"a":{"b":"c"}}}\n');
  });

  it("writes a value's registered JSON text as it is", async () => {
    const doc = withJsonText({ ignored: true }, Buffer.from('{"registered":1}'));
    const answer = await dataAnswerInTurns({ doc, other: [1] });
    expect(bytesOf(answer).toString('utf8')).toBe('{"data":{"doc":{"registered":1},"other":[1]}}\n');
  });

  it('gives the event loop back between fields once a turn has used its budget', async () => {
    const field = { input: `0x${'ab'.repeat(25_000)}` };
    const data = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`t${i}`, field]));
    let turns = 0;
    let counting = true;
    const count = () => {
      turns++;
      if (counting) setImmediate(count);
    };
    setImmediate(count);
    const answer = await dataAnswerInTurns(data, 0);
    counting = false;
    expect(bytesOf(answer).length).toBe(JSON.stringify({ data }).length + 1);
    // With no budget, every field is a turn of its own.
    expect(turns).toBeGreaterThanOrEqual(99);
  });
});
