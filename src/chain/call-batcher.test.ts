import { startBesuFront, type BesuFront } from '../../tests/kit/besu-node';
import { capturingLogger } from '../../tests/kit/logs';
import { createLogger, type Logger } from '../kernel/logger';
import { CallBatcher, MissingBatchAnswerError, type SendPayload } from './call-batcher';
import { ChainRegistry } from './chain-registry';
import { startLocalNode, type LocalNode } from './local-node';
import type { JsonRpcAnswer } from './rpc-transport';

// Reads through the chain registry to a real anvil behind the Besu-faithful front, which counts
// the batches it receives and refuses those above its --rpc-http-max-batch-size.

/** The identity precompile (0x…04) answers an eth_call with its input: every call its own answer. */
const IDENTITY = `0x${'0'.repeat(39)}4`;
/** Runtime code that reverts with the 4 bytes 0xdeadbeef. */
const REVERTER = '0x63deadbeef6000526004601cfd';
const REVERTER_ADDRESS = `0x${'ab'.repeat(20)}`;
const input = (i: number) => `0x${i.toString(16).padStart(8, '0')}`;

describe('reads sent to the node together', () => {
  const silent = createLogger('silent');
  let node: LocalNode;
  const fronts: BesuFront[] = [];
  const registries: ChainRegistry[] = [];

  async function connect(opts: { maxBatch?: number; maxBatchSize?: number; logger?: Logger } = {}) {
    const front = await startBesuFront({ upstream: node.url, maxBatchSize: opts.maxBatchSize });
    fronts.push(front);
    const registry = await ChainRegistry.connect(
      { testnet: { urls: [front.url], maxBatch: opts.maxBatch } },
      opts.logger ?? silent,
    );
    registries.push(registry);
    return { front, registry };
  }

  const reads = (registry: ChainRegistry, from: number, count: number) =>
    Array.from({ length: count }, (_, i) => registry.call('testnet', { to: IDENTITY, data: input(from + i) }));

  beforeAll(async () => {
    node = await startLocalNode({ chainId: 17991, blockTime: 1, logger: silent });
    const set = await fetch(node.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_setCode', params: [REVERTER_ADDRESS, REVERTER] }),
    });
    expect(((await set.json()) as { error?: unknown }).error).toBeUndefined();
  });

  afterAll(async () => {
    for (const registry of registries) registry.destroy();
    await Promise.all(fronts.map((f) => f.stop()));
    await node?.stop();
  });

  it('sends the reads of one turn as batches of at most 16, each read with its own answer', async () => {
    const { front, registry } = await connect();
    const answers = await Promise.all(reads(registry, 0, 20));
    expect(answers).toEqual(Array.from({ length: 20 }, (_, i) => input(i)));
    expect(front.batches).toEqual([16, 4]);
    expect(front.calls.filter((m) => m === 'eth_call')).toHaveLength(20);
  });

  it('sends a lone read alone, without waiting for company', async () => {
    const { front, registry } = await connect();
    const started = performance.now();
    expect(await registry.call('testnet', { to: IDENTITY, data: input(7) })).toBe(input(7));
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(front.batches).toEqual([]);
    expect(front.calls).toContain('eth_call');
  });

  it('fails only the read that reverted, with its revert data; the others of its batch answer', async () => {
    const { front, registry } = await connect();
    const results = await Promise.allSettled([
      ...reads(registry, 100, 3),
      registry.call('testnet', { to: REVERTER_ADDRESS, data: '0x' }),
      ...reads(registry, 200, 3),
    ]);
    expect(front.batches).toEqual([7]);
    expect(results.map((r) => r.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
      'fulfilled',
    ]);
    expect((results[0] as PromiseFulfilledResult<string>).value).toBe(input(100));
    expect((results[6] as PromiseFulfilledResult<string>).value).toBe(input(202));
    const reverted = (results[3] as PromiseRejectedResult).reason as { code?: string; data?: string };
    expect(reverted.code).toBe('CALL_EXCEPTION');
    expect(reverted.data).toBe('0xdeadbeef');
  });

  it('answers every read when the node refuses batches, sends reads alone from then on, and warns once', async () => {
    const { logger, lines } = capturingLogger();
    const { front, registry } = await connect({ maxBatchSize: 4, logger });
    expect(await Promise.all(reads(registry, 300, 10))).toEqual(Array.from({ length: 10 }, (_, i) => input(300 + i)));
    expect(await Promise.all(reads(registry, 400, 10))).toEqual(Array.from({ length: 10 }, (_, i) => input(400 + i)));
    // The first batch was refused whole; its reads and every later one went alone.
    expect(front.batches).toEqual([10]);
    expect(front.calls.filter((m) => m === 'eth_call')).toHaveLength(20);
    const warnings = lines.filter((l) => String(l.msg).includes('refused a batch'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ network: 'testnet', batchSize: 10, code: -32005 });
    expect(String(warnings[0]!.msg)).toContain('TESTNET_RPC_MAX_BATCH=1');
  });

  it('batches only the reads of one group (the gateway: one developer) together', async () => {
    // Besu runs a batch's calls one after another: one developer's slow calls must not hold another's.
    const { front, registry } = await connect();
    const read = (i: number, group: string) =>
      registry.call('testnet', { to: IDENTITY, data: input(i) }, undefined, group);
    const answers = await Promise.all([
      read(600, 'ada'),
      read(601, 'bob'),
      read(602, 'ada'),
      read(603, 'bob'),
      read(604, 'ada'),
    ]);
    expect(answers).toEqual([600, 601, 602, 603, 604].map(input));
    expect(front.batches).toEqual([3, 2]);
  });

  it('sends every read alone with TESTNET_RPC_MAX_BATCH=1', async () => {
    const { front, registry } = await connect({ maxBatch: 1 });
    expect(await Promise.all(reads(registry, 500, 5))).toEqual(Array.from({ length: 5 }, (_, i) => input(500 + i)));
    expect(front.batches).toEqual([]);
  });
});

// TEST DOUBLE: a node that leaves an entry out of its answer to a batch, or whose HTTP exchange
// fails, for the batcher alone. JSON-RPC 2.0 (section 6) requires an answer per call; no node here
// breaks that rule, so a function stands in for the transport.
describe('CallBatcher against a node that breaks the rules', () => {
  const call = (id: number, result: string): JsonRpcAnswer => ({ id, result });

  it('fails a read the node left out of its answer, and only that one', async () => {
    const send: SendPayload = async (payload) => {
      if (!Array.isArray(payload)) return [call(payload.id, 'alone')];
      return payload.filter((p) => p.id !== 2).map((p) => call(p.id, `r${p.id}`));
    };
    const batcher = new CallBatcher(send, 16, () => undefined);
    const results = await Promise.allSettled([1, 2, 3].map(() => batcher.call('eth_call', [])));
    expect(results[0]).toEqual({ status: 'fulfilled', value: { id: 1, result: 'r1' } });
    expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(MissingBatchAnswerError);
    expect(results[2]).toEqual({ status: 'fulfilled', value: { id: 1, result: 'r3' } });
  });

  it('matches answers by id, whatever their order, and ignores entries that answer no call', async () => {
    const send: SendPayload = async (payload) => {
      if (!Array.isArray(payload)) return [call(payload.id, 'alone')];
      const answers = payload.map((p) => call(p.id, `r${p.id}`)).reverse();
      // Junk a broken node might add: not objects, an id no call has, a second answer for id 1.
      return [null, 7, call(99, 'stray'), ...answers, call(1, 'late duplicate')] as unknown as JsonRpcAnswer[];
    };
    const batcher = new CallBatcher(send, 16, () => undefined);
    const results = await Promise.all([1, 2, 3].map(() => batcher.call('eth_call', [])));
    expect(results.map((r) => ('result' in r ? r.result : undefined))).toEqual(['r1', 'r2', 'r3']);
  });

  it('fails every read of a batch whose exchange failed, with that failure', async () => {
    const failure = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    const batcher = new CallBatcher(
      () => Promise.reject(failure),
      16,
      () => undefined,
    );
    const results = await Promise.allSettled([1, 2, 3].map(() => batcher.call('eth_call', [])));
    expect(results).toEqual([1, 2, 3].map(() => ({ status: 'rejected', reason: failure })));
  });
});
