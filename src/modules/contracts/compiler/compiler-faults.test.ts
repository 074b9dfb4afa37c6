import { AppError } from '../../../kernel/errors/app-error';
import { SolidityCompiler } from './compiler';

/**
 * A real input that crashes soljson 0.8.20: a 60 000-term sum (240 KB, under the 1 MiB limit)
 * parses fine (the parser loops over same-precedence operators), but its left-deep tree overflows
 * the stack of solc's recursive passes: RangeError "Maximum call stack size exceeded" thrown out
 * of the wasm, after which that soljson instance answers every compile with "Internal exception
 * in StandardCompiler::compile". (Nested parentheses do not crash it: the parser caps their depth.)
 */
const CRASHING = `pragma solidity ^0.8.20;
contract Deep { function f() public pure returns (uint256 y) { y = 1${' + 1'.repeat(60_000)}; } }`;

/**
 * A real input that keeps solc busy far longer than the 5 s timeout below: 16 000 statements for the
 * optimizer (8 000 took ~8 s on a 2-core machine). It is stopped at the timeout, so its length costs
 * the test nothing.
 */
const SLOW = `pragma solidity ^0.8.20;
contract Slow { function f(uint256 a) public pure returns (uint256 y) { ${'y += a * 3; '.repeat(16_000)} } }`;

const simple = (name: string) => ({ sources: { [`${name}.sol`]: `pragma solidity ^0.8.20;\ncontract ${name} {}` } });

async function rejectionOf(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    return e as AppError;
  }
  throw new Error('expected the compile to fail');
}

describe('SolidityCompiler faults', () => {
  it('answers a solc crash with 422, replaces the worker, and compiles the next input on the fresh one', async () => {
    const compiler = new SolidityCompiler({ workers: 1 });
    try {
      const crash = await rejectionOf(compiler.compile({ sources: { 'Deep.sol': CRASHING } }));
      expect(crash.code).toBe('COMPILATION_FAILED');
      expect(crash.message).toMatch(/^Compilation failed: the compiler crashed on this input \(RangeError/);
      expect(crash.details).toMatchObject({ errors: [{ severity: 'error', sourceLocation: null }] });
      expect(compiler.stats).toMatchObject({ crashes: 1, workersReplaced: 1, workersStarted: 2 });

      const next = await compiler.compile(simple('AfterCrash'));
      expect(next.contracts.map((c) => c.name)).toEqual(['AfterCrash']);

      // The crash is cached: sending the same input again does not kill another worker.
      const again = await rejectionOf(compiler.compile({ sources: { 'Deep.sol': CRASHING } }));
      expect(again.message).toBe(crash.message);
      expect(compiler.stats.crashes).toBe(1);
    } finally {
      await compiler.close();
    }
  });

  it('times a compile out, queues behind a busy worker, refuses beyond the queue, and recovers', async () => {
    // 5 s: the queued compile runs on a worker started anew after the timeout (about 2 s on an idle
    // machine here), and must fit while eight test files load the machine: 2 s did not.
    const compiler = new SolidityCompiler({ workers: 1, timeoutMs: 5_000, maxQueued: 1 });
    try {
      await compiler.warmUp();
      const slow = compiler.compile({ sources: { 'Slow.sol': SLOW } });
      const queued = compiler.compile(simple('Queued'));
      const refused = await rejectionOf(compiler.compile(simple('Refused')));
      expect(refused.code).toBe('SERVICE_UNAVAILABLE');
      expect(refused.message).toMatch(/busy/);
      expect(refused.headers).toEqual({ 'Retry-After': '5' });

      const timedOut = await rejectionOf(slow);
      expect(timedOut.code).toBe('COMPILATION_FAILED');
      expect(timedOut.message).toBe('Compilation failed: compilation timed out after 5 s');
      expect((await queued).contracts.map((c) => c.name)).toEqual(['Queued']);
      expect(compiler.stats).toMatchObject({ timeouts: 1, workersReplaced: 1 });

      // A timed-out source is remembered (docs/api.md, "Conventions"): the same input is answered at once, not run again.
      const dispatched = compiler.stats.compilesDispatched;
      const remembered = await rejectionOf(compiler.compile({ sources: { 'Slow.sol': SLOW } }));
      expect(remembered.message).toBe(timedOut.message);
      expect(compiler.stats.compilesDispatched).toBe(dispatched);
      expect(compiler.stats.exhaustedHits).toBe(1);
    } finally {
      await compiler.close();
    }
  });

  it('refuses compiles after close with 503, and close ends a warm-up under way', async () => {
    const compiler = new SolidityCompiler({ workers: 1 });
    // rejectionOf attaches its handler at once: both settle while close() runs.
    const warming = rejectionOf(compiler.warmUp());
    const queued = rejectionOf(compiler.compile(simple('Waiting')));
    await compiler.close();
    expect((await warming).code).toBe('SERVICE_UNAVAILABLE');
    expect((await queued).code).toBe('SERVICE_UNAVAILABLE');
    expect((await rejectionOf(compiler.compile(simple('Closed')))).code).toBe('SERVICE_UNAVAILABLE');
  });
});
