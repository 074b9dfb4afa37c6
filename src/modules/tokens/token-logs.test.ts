import { AbiCoder, zeroPadValue } from 'ethers';
import { cpuTimed, leastLoopHoldCpuMs } from '../../../tests/kit/cpu-time';
import { decodeText, decodeUint } from './token-metadata';
import {
  MAX_BATCH_IDS,
  TRANSFER_BATCH_TOPIC,
  TRANSFER_SINGLE_TOPIC,
  TRANSFER_TOPIC,
  transfersOfBlocks,
  transfersOfLog,
  ZERO_ADDRESS,
} from './token-logs';

const coder = AbiCoder.defaultAbiCoder();
const token = `0x${'aa'.repeat(20)}`;
const alice = `0x${'a1'.repeat(20)}`;
const bob = `0x${'b0'.repeat(20)}`;
const t = (address: string) => zeroPadValue(address, 32);
const word = (n: bigint) => coder.encode(['uint256'], [n]);
const log = (topics: string[], data: string) =>
  transfersOfLog(5, 1000, '0xtx', { address: token, topics, data, logIndex: 3 });

describe('transfersOfLog', () => {
  it('reads an ERC-20 Transfer (3 topics, value in data) and an ERC-721 one (4 topics, tokenId topic)', () => {
    expect(log([TRANSFER_TOPIC, t(alice), t(bob)], word(7n))).toEqual([
      expect.objectContaining({ type: 'ERC-20', from: alice, to: bob, value: '7', tokenId: null, batchIndex: -1 }),
    ]);
    expect(log([TRANSFER_TOPIC, t(alice), t(bob), word(9n)], '0x')).toEqual([
      expect.objectContaining({ type: 'ERC-721', from: alice, to: bob, value: null, tokenId: '9' }),
    ]);
  });

  it('reads TransferSingle and TransferBatch (one item per id)', () => {
    const op = t(alice);
    expect(
      log([TRANSFER_SINGLE_TOPIC, op, t(ZERO_ADDRESS), t(bob)], coder.encode(['uint256', 'uint256'], [4n, 10n])),
    ).toEqual([expect.objectContaining({ type: 'ERC-1155', from: ZERO_ADDRESS, to: bob, tokenId: '4', value: '10' })]);
    const batch = log(
      [TRANSFER_BATCH_TOPIC, op, t(alice), t(bob)],
      coder.encode(
        ['uint256[]', 'uint256[]'],
        [
          [1n, 2n],
          [30n, 40n],
        ],
      ),
    );
    expect(batch.map((r) => [r.batchIndex, r.tokenId, r.value])).toEqual([
      [0, '1', '30'],
      [1, '2', '40'],
    ]);
  });

  it.each([
    ['ERC-20 with two data words', [TRANSFER_TOPIC, t(alice), t(bob)], `${word(1n)}${word(2n).slice(2)}`],
    ['ERC-20 with no data', [TRANSFER_TOPIC, t(alice), t(bob)], '0x'],
    ['ERC-721 with data', [TRANSFER_TOPIC, t(alice), t(bob), word(1n)], word(1n)],
    ['an address topic with high bits', [TRANSFER_TOPIC, `0x${'ff'.repeat(32)}`, t(bob)], word(1n)],
    ['odd hex data', [TRANSFER_TOPIC, t(alice), t(bob)], '0x123'],
    ['TransferSingle with one word', [TRANSFER_SINGLE_TOPIC, t(alice), t(alice), t(bob)], word(1n)],
    [
      'TransferBatch with arrays of different lengths',
      [TRANSFER_BATCH_TOPIC, t(alice), t(alice), t(bob)],
      coder.encode(['uint256[]', 'uint256[]'], [[1n], [1n, 2n]]),
    ],
    [
      'TransferBatch whose length points past the data',
      [TRANSFER_BATCH_TOPIC, t(alice), t(alice), t(bob)],
      `0x${[64n, 128n, 1000n, 0n, 0n].map((n) => word(n).slice(2)).join('')}`,
    ],
    [
      'TransferBatch with a huge offset',
      [TRANSFER_BATCH_TOPIC, t(alice), t(alice), t(bob)],
      `0x${[2n ** 255n, 64n, 0n, 0n].map((n) => word(n).slice(2)).join('')}`,
    ],
  ])('skips %s', (_name, topics, data) => {
    expect(log(topics, data)).toEqual([]);
  });

  it('skips a TransferBatch of more than MAX_BATCH_IDS ids, reading no more than its data', () => {
    const n = MAX_BATCH_IDS + 1;
    const ids = Array.from({ length: n }, (_, i) => BigInt(i));
    const data = coder.encode(['uint256[]', 'uint256[]'], [ids, ids]);
    expect(log([TRANSFER_BATCH_TOPIC, t(alice), t(alice), t(bob)], data)).toEqual([]);
  });
});

describe('transfersOfBlocks', () => {
  it('reads a batch of blocks full of maximal TransferBatch logs without holding the event loop 100 ms', async () => {
    const ids = Array.from({ length: MAX_BATCH_IDS }, (_, i) => BigInt(i));
    const data = coder.encode(['uint256[]', 'uint256[]'], [ids, ids]);
    const topics = [TRANSFER_BATCH_TOPIC, t(alice), t(alice), t(bob)];
    const blocks = Array.from({ length: 10 }, (_, n) => ({
      block: { number: `0x${n.toString(16)}`, timestamp: '0x1', transactions: [{ hash: `0x${'0'.repeat(63)}${n}` }] },
      receipts: [
        {
          logs: Array.from({ length: 8 }, (_, i) => ({
            address: token,
            topics,
            data,
            logIndex: `0x${i.toString(16)}`,
          })),
        },
      ],
    }));
    const whole = cpuTimed(() =>
      blocks.map((b) => b.receipts[0]!.logs.map((l) => transfersOfLog(0, 0, '0x', { ...l, logIndex: 0 }))),
    );
    const { result, maxHoldMs } = await leastLoopHoldCpuMs(() => transfersOfBlocks(blocks), 100);
    expect(result).toHaveLength(10 * 8 * MAX_BATCH_IDS);
    expect(result[MAX_BATCH_IDS + 1]).toMatchObject({ block: 0, logIndex: 1, batchIndex: 1, tokenId: '1', value: '1' });
    // The whole batch takes longer than the bound in one go; given back in turns, no turn reaches it.
    expect(maxHoldMs).toBeLessThan(100);
    console.log(`800,000 items: ${Math.round(whole.cpuMs)} ms of work, longest hold ${Math.round(maxHoldMs)} ms`);
  }, 60_000);
});

describe('token metadata decoding', () => {
  it('reads strings and bytes32 names, and refuses junk', () => {
    expect(decodeText(coder.encode(['string'], ['Token']))).toBe('Token');
    expect(decodeText(`0x${Buffer.from('MKR').toString('hex').padEnd(64, '0')}`)).toBe('MKR');
    expect(decodeText(coder.encode(['string'], ['x'.repeat(300)]))).toBeNull();
    expect(decodeText(coder.encode(['string'], ['bad\u0000name']))).toBeNull();
    expect(decodeText(`0x${'ff'.repeat(5)}`)).toBeNull();
    expect(decodeText(coder.encode(['uint256', 'uint256'], [32n, 2n ** 200n]))).toBeNull();
    expect(decodeText(`0x${'c3'.repeat(32)}`)).toBeNull();
    expect(decodeText(`0x${'00'.repeat(100_000)}`)).toBeNull();
  });

  it('reads a uint256 of exactly one word', () => {
    expect(decodeUint(word(18n))).toBe(18n);
    expect(decodeUint('0x12')).toBeNull();
    expect(decodeUint(`${word(1n)}${word(2n).slice(2)}`)).toBeNull();
  });
});
