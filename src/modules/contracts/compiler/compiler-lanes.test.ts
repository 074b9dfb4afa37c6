import { AppError } from '../../../errors/app-error';
import { SolidityCompiler } from './compiler';
import { SolcWorkerPool } from './solc-worker-pool';

const COUNTER = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract Counter {
  uint256 public count;
  function increment() external { count += 1; }
}
`;

/** Constants each using the previous one twice: solc's constant evaluation doubles at every step. */
function pathological(comment: string): string {
  const lines = ['uint constant A0 = 1;'];
  for (let i = 1; i <= 60; i++) lines.push(`uint constant A${i} = A${i - 1} + A${i - 1};`);
  return `// ${comment}\npragma solidity ^0.8.20;\n${lines.join('\n')}\ncontract P { uint public x = A60; }\n`;
}

async function failureOf(run: Promise<unknown>): Promise<AppError> {
  try {
    await run;
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    return e as AppError;
  }
  throw new Error('expected the compile to fail');
}

describe('SolidityCompiler lanes and bounds (real solc 0.8.20)', () => {
  const compiler = new SolidityCompiler({ workers: 1, anonymousTimeoutMs: 3_000 });
  afterAll(() => compiler.close());

  it("refuses an anonymous pathological source while a developer's compile finishes within 5 s", async () => {
    await compiler.warmUp();
    const source = pathological('a');
    const anonymous = failureOf(compiler.compile({ sources: { 'P.sol': source } }, 'anonymous'));
    await new Promise((r) => setTimeout(r, 200));
    const started = Date.now();
    const mine = await compiler.compile({ sources: { 'Counter.sol': COUNTER } }, 'developer');
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(mine.contracts[0]!.name).toBe('Counter');
    const refused = await anonymous;
    expect(refused.code).toBe('COMPILATION_FAILED');
    expect(JSON.stringify(refused.details)).toMatch(/timed out|memory|crashed/);
  }, 60_000);

  it('answers the same source at once afterwards, whatever its comments and layout', async () => {
    const before = compiler.stats.exhaustedHits;
    const started = Date.now();
    const again = await failureOf(
      compiler.compile({ sources: { 'Q.sol': pathological('one byte changed').replace(/\n/g, '\n  ') } }, 'anonymous'),
    );
    expect(Date.now() - started).toBeLessThan(500);
    expect(again.code).toBe('COMPILATION_FAILED');
    expect(compiler.stats.exhaustedHits).toBe(before + 1);
  });
});

describe("the developers' lane", () => {
  // The other developer's bound (3 s) is under the pathological compile's timeout: were they kept
  // waiting behind it, they would answer after the timeout and fail the bound.
  const compiler = new SolidityCompiler({ workers: 2, timeoutMs: 3_500 });
  afterAll(() => compiler.close());

  it("keeps a worker for other developers while one developer's pathological source runs", async () => {
    await compiler.warmUp();
    const slow = failureOf(compiler.compile({ sources: { 'P.sol': pathological('dev') } }, 'developer', 'dev-a'));
    await new Promise((r) => setTimeout(r, 200));
    // The same developer waits behind their own compile: they never hold both workers.
    const sameCaller = compiler.compile(
      { sources: { 'Mine.sol': COUNTER.replace('Counter', 'Mine') } },
      'developer',
      'dev-a',
    );
    const started = Date.now();
    const other = await compiler.compile({ sources: { 'Counter.sol': COUNTER } }, 'developer', 'dev-b');
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(other.contracts[0]!.name).toBe('Counter');
    expect((await slow).code).toBe('COMPILATION_FAILED');
    expect((await sameCaller).contracts[0]!.name).toBe('Mine');
  }, 60_000);
});

describe('solc worker memory bound', () => {
  it("fails a compile whose wasm memory would grow past the bound (solc's std::bad_alloc), and retires the worker", async () => {
    // solc starts with 16 MiB; a bound just above it is reached by any contract of some size.
    const pool = new SolcWorkerPool({ size: 1, timeoutMs: 30_000, maxQueued: 5, maxHeapBytes: 17 * 1024 * 1024 });
    const functions = Array.from(
      { length: 200 },
      (_, i) => `function f${i}(uint a) external pure returns (uint) { return a * ${i} + (a ** 2) / (${i} + 1); }`,
    ).join('\n');
    try {
      const outcome = await pool.run(
        JSON.stringify({
          language: 'Solidity',
          sources: { 'Big.sol': { content: `pragma solidity ^0.8.20;\ncontract Big {\n${functions}\n}` } },
          settings: {
            optimizer: { enabled: true, runs: 200 },
            outputSelection: { '*': { '*': ['evm.bytecode.object'] } },
          },
        }),
      );
      expect(outcome).toMatchObject({ kind: 'compiled', internalError: true });
      expect(JSON.stringify(outcome)).toMatch(/bad_alloc/);
      expect(pool.stats.workersReplaced).toBe(1);
    } finally {
      await pool.close();
    }
  }, 60_000);
});
