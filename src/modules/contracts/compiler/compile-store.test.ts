import { mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createLogger } from '../../../kernel/logger';
import { CompileStore } from './compile-store';
import { SolidityCompiler } from './compiler';

const COUNTER = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract StoredCounter {
  uint256 public count;
  function increment() external { count += 1; }
}
`;

const BROKEN = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract Broken { function f() external { undefinedThing(); } }
`;

const OUTPUT = { contracts: [], skipped: [], warnings: [] };
const key = (n: number) => n.toString(16).padStart(64, '0');
/** The size of one stored test output. */
const SIZE = Buffer.byteLength(JSON.stringify({ format: 1, key: key(0), version: 'x', output: OUTPUT }));

describe('CompileStore', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'compile-store-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps an output under its key and reads it back', async () => {
    const store = new CompileStore({ dir: path.join(dir, 'nested'), maxBytes: 1_000_000 });
    expect(await store.get(key(1))).toBeUndefined();
    await store.put(key(1), { version: '0.8.20+commit.a1b79de6.Emscripten.clang', output: OUTPUT });
    expect(await store.get(key(1))).toEqual({ version: '0.8.20+commit.a1b79de6.Emscripten.clang', output: OUTPUT });
    expect(readdirSync(path.join(dir, 'nested'))).toEqual([`${key(1)}.json`]);
  });

  it('treats a truncated, foreign or misplaced file as a miss, and refuses keys that are not hashes', async () => {
    const store = new CompileStore({ dir, maxBytes: 1_000_000 });
    writeFileSync(path.join(dir, `${key(2)}.json`), '{"format":1,"key":"');
    writeFileSync(
      path.join(dir, `${key(3)}.json`),
      JSON.stringify({ format: 1, key: key(4), version: 'x', output: OUTPUT }),
    );
    writeFileSync(
      path.join(dir, `${key(5)}.json`),
      JSON.stringify({ format: 1, key: key(5), version: 'x', output: {} }),
    );
    expect(await store.get(key(2))).toBeUndefined();
    expect(await store.get(key(3))).toBeUndefined();
    expect(await store.get(key(5))).toBeUndefined();
    await store.put('../../escape', { version: 'x', output: OUTPUT });
    expect(await store.get('../../escape')).toBeUndefined();
    expect(readdirSync(dir).sort()).toEqual([`${key(2)}.json`, `${key(3)}.json`, `${key(5)}.json`]);
  });

  it('removes the oldest outputs past its size bound, and keeps none larger than a tenth of it', async () => {
    // Room for ten and a half outputs: the eleventh makes the oldest go until a tenth is free.
    const store = new CompileStore({ dir, maxBytes: Math.floor(SIZE * 10.5) });
    for (let i = 0; i < 10; i++) {
      await store.put(key(i), { version: 'x', output: OUTPUT });
      utimesSync(path.join(dir, `${key(i)}.json`), 1_000 + i, 1_000 + i);
    }
    await store.put(key(10), { version: 'x', output: OUTPUT });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const left = readdirSync(dir).sort();
    expect(left).toHaveLength(9);
    expect(left).not.toContain(`${key(0)}.json`);
    expect(left).toContain(`${key(10)}.json`);

    const big = {
      ...OUTPUT,
      warnings: [
        { severity: 'warning' as const, message: 'x'.repeat(SIZE * 2), formattedMessage: '', sourceLocation: null },
      ],
    };
    await store.put(key(11), { version: 'x', output: big });
    expect(await store.get(key(11))).toBeUndefined();
  });
});

describe('CompileStore on a disk it cannot write', () => {
  it('answers misses, stores nothing and warns once', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'compile-store-'));
    const blocker = path.join(dir, 'not-a-directory');
    writeFileSync(blocker, '');
    const lines: string[] = [];
    const logger = createLogger('debug', { write: (line: string) => void lines.push(line) });
    const store = new CompileStore({ dir: path.join(blocker, 'cache'), maxBytes: 1_000_000, logger });
    try {
      for (let i = 0; i < 3; i++) await store.put(key(i), { version: 'x', output: OUTPUT });
      expect(await store.get(key(0))).toBeUndefined();
      const logged = lines.map((line) => JSON.parse(line) as { level: number; msg: string });
      expect(logged.filter((l) => l.level === 40)).toHaveLength(1);
      expect(logged.filter((l) => l.level === 20).length).toBeGreaterThanOrEqual(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('SolidityCompiler with a store', () => {
  it("answers a developer's source compiled by another compiler from the store, without solc; stores no failure and no anonymous compile", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'compile-store-'));
    const first = new SolidityCompiler({ workers: 1, store: new CompileStore({ dir, maxBytes: 1_000_000 }) });
    const second = new SolidityCompiler({ workers: 1, store: new CompileStore({ dir, maxBytes: 1_000_000 }) });
    try {
      const compiled = await first.compile({ sources: { 'StoredCounter.sol': COUNTER } });
      await expect(first.compile({ sources: { 'Broken.sol': BROKEN } })).rejects.toMatchObject({
        code: 'COMPILATION_FAILED',
      });
      // Anonymous compiles stay in memory.
      await first.compile(
        { sources: { 'Anonymous.sol': COUNTER.replace('StoredCounter', 'AnonymousCounter') } },
        'anonymous',
      );
      await new Promise((resolve) => setTimeout(resolve, 100));
      const files = readdirSync(dir);
      expect(files).toHaveLength(1);
      expect(JSON.parse(readFileSync(path.join(dir, files[0]!), 'utf8')).version).toMatch(/^0\.8\.20\+commit\./);

      const again = await second.compile({ sources: { 'StoredCounter.sol': COUNTER } });
      expect(again).toEqual(compiled);
      expect(second.stats).toMatchObject({ storeHits: 1, workersStarted: 0, compilesDispatched: 0 });
      expect(again.compiler.version).toBe('0.8.20+commit.a1b79de6');
    } finally {
      await Promise.all([first.close(), second.close()]);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
