import { startRedis, type TestRedis } from '../../../../tests/kit/redis';
import { AppError } from '../../../kernel/errors/app-error';
import { createLimitStore, type LimitStore } from '../../../kernel/limit-store';
import { createLogger } from '../../../kernel/logger';
import { SolidityCompiler } from './compiler';

// docs/api.md, "Several instances": with REDIS_URL a client's one compile slot holds over every
// instance; another client, and the same client once its compile ended, compile on any instance.

const SPDX = '// SPDX-License-Identifier: MIT\n';
const source = (name: string) => ({
  sources: {
    'C.sol': `${SPDX}pragma solidity ^0.8.20;\ncontract ${name} { uint256 public v; function set(uint256 x) external { v = x; } }\n`,
  },
});

describe('compile slots over two instances with one Redis', () => {
  let redis: TestRedis;
  let stores: LimitStore[];
  let compilers: SolidityCompiler[];

  beforeAll(async () => {
    redis = await startRedis();
    stores = [0, 1].map(() => createLimitStore(redis.url, createLogger('silent')));
    for (const s of stores) {
      for (let i = 0; i < 200 && !s.connected(); i++) await new Promise((r) => setTimeout(r, 25));
    }
    compilers = stores.map((s) => new SolidityCompiler({ workers: 1, sharedSlots: s.connectionCap('compile', 1) }));
  });
  afterAll(async () => {
    await Promise.all((compilers ?? []).map((c) => c.close()));
    for (const s of stores ?? []) await s.close();
    await redis?.stop();
  });

  it("refuses a client's second compile on the other instance while its first runs, then lets it through", async () => {
    const first = compilers[0]!.compile(source('First'), 'developer', 'dev-1');
    // The first compile's slot is taken before its worker starts (a worker's start alone takes longer).
    await new Promise((r) => setTimeout(r, 100));
    const refused = await compilers[1]!.compile(source('Second'), 'developer', 'dev-1').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).code).toBe('RATE_LIMITED');
    expect(Number((refused as AppError).headers?.['Retry-After'])).toBeGreaterThanOrEqual(1);
    // Another client is not held up by it.
    const other = await compilers[1]!.compile(source('Other'), 'developer', 'dev-2');
    expect(other.contracts.map((c) => c.name)).toEqual(['Other']);
    expect((await first).contracts.map((c) => c.name)).toEqual(['First']);
    // Once the first ended, its slot is free on every instance.
    const second = await compilers[1]!.compile(source('Second'), 'developer', 'dev-1');
    expect(second.contracts.map((c) => c.name)).toEqual(['Second']);
  }, 120_000);

  it('still shares an identical compile in flight on one instance, for the same client', async () => {
    const [a, b] = await Promise.all([
      compilers[0]!.compile(source('Same'), 'developer', 'dev-3'),
      compilers[0]!.compile(source('Same'), 'developer', 'dev-3'),
    ]);
    expect(a.contracts.map((c) => c.name)).toEqual(['Same']);
    expect(b.contracts.map((c) => c.name)).toEqual(['Same']);
  }, 120_000);
});
