import { Interface } from 'ethers';
import { isAppError } from '../../kernel/errors/app-error';
import { decodeEvent, decodeLogWith, findEvent, listEvents } from './abi-event';

const ADDR = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const iface = new Interface([
  'event Stored(address indexed who, uint256 value, string note)',
  'event Moved(uint256 value)',
  'event Moved(uint256 value, address to)',
  'event Tagged(string indexed label, tuple(address to, uint256 amount) order, bytes blob)',
  'event Unnamed(uint256, bool)',
  'function set(uint256 v)',
]);
const abi = [
  ...(JSON.parse(iface.formatJson()) as unknown[]),
  { type: 'event', name: 'Hidden', anonymous: true, inputs: [{ name: 'value', type: 'uint256', indexed: false }] },
];
const events = listEvents(abi);

/** A log as a node returns it for `name(...values)`. */
function log(signature: string, values: unknown[]) {
  const fragment = iface.getEvent(signature)!;
  const { data, topics } = iface.encodeEventLog(fragment, values);
  return { data, topics };
}

function appErrorOf(fn: () => unknown) {
  try {
    fn();
  } catch (err) {
    if (isAppError(err)) return { code: err.code, details: err.details };
    throw err;
  }
  throw new Error('expected an AppError');
}

describe('listEvents', () => {
  it('lists the non-anonymous events with signature and topic, functions left out', () => {
    expect(events.map((e) => e.signature)).toEqual([
      'Stored(address,uint256,string)',
      'Moved(uint256)',
      'Moved(uint256,address)',
      'Tagged(string,(address,uint256),bytes)',
      'Unnamed(uint256,bool)',
    ]);
    expect(events[0]!.topic).toBe(iface.getEvent('Stored')!.topicHash);
  });

  it('skips repeated and unreadable entries', () => {
    const twice = [...abi, abi[0], { type: 'event', name: 'Broken', inputs: [{ type: 'nonsense' }] }];
    expect(listEvents(twice)).toHaveLength(events.length);
  });
});

describe('findEvent', () => {
  it('finds an event by its unique name or by its signature, however spelled', () => {
    expect(findEvent(events, 'Stored').signature).toBe('Stored(address,uint256,string)');
    expect(findEvent(events, 'Moved(uint256, address)').signature).toBe('Moved(uint256,address)');
    expect(findEvent(events, 'Moved(uint value)').signature).toBe('Moved(uint256)');
  });

  it('refuses a name or signature longer than any ABI holds before parsing it', () => {
    expect(appErrorOf(() => findEvent(events, `Moved(${'uint256,'.repeat(200_000)}uint256)`))).toEqual({
      code: 'VALIDATION_FAILED',
      details: { field: 'event' },
    });
  });

  it('refuses a shared name with the signatures to choose from', () => {
    expect(appErrorOf(() => findEvent(events, 'Moved'))).toEqual({
      code: 'AMBIGUOUS_METHOD',
      details: { event: 'Moved', signatures: ['Moved(uint256)', 'Moved(uint256,address)'] },
    });
  });

  it('refuses events the ABI does not declare, anonymous ones and functions included', () => {
    for (const name of ['Nope', 'Hidden', 'set', 'Stored(address)', 'Moved(']) {
      expect(appErrorOf(() => findEvent(events, name)).code).toBe('METHOD_NOT_FOUND');
    }
  });
});

describe('decodeEvent', () => {
  it('keys the arguments by name, integers as decimal strings and addresses checksummed', () => {
    const { data, topics } = log('Stored', [ADDR.toLowerCase(), 2n ** 200n, 'hi']);
    expect(decodeEvent(findEvent(events, 'Stored'), topics, data)).toEqual({
      name: 'Stored',
      signature: 'Stored(address,uint256,string)',
      args: { who: ADDR, value: (2n ** 200n).toString(), note: 'hi' },
    });
  });

  it('gives an indexed string as its topic, tuples as objects and bytes as hex', () => {
    const { data, topics } = log('Tagged', ['label', { to: ADDR, amount: 5n }, '0xDEADBEEF']);
    expect(decodeEvent(findEvent(events, 'Tagged'), topics, data)!.args).toEqual({
      label: topics[1],
      order: { to: ADDR, amount: '5' },
      blob: '0xdeadbeef',
    });
  });

  it('keys unnamed parameters by position', () => {
    const { data, topics } = log('Unnamed', [7n, true]);
    expect(decodeEvent(findEvent(events, 'Unnamed'), topics, data)!.args).toEqual({ '0': '7', '1': true });
  });

  it('returns null for another event, another number of topics or data that does not decode', () => {
    const stored = findEvent(events, 'Stored');
    const { data, topics } = log('Stored', [ADDR, 1n, 'x']);
    expect(decodeEvent(findEvent(events, 'Moved(uint256)'), topics, data)).toBeNull();
    expect(decodeEvent(stored, topics.slice(0, 1), data)).toBeNull();
    expect(decodeEvent(stored, topics, '0x1234')).toBeNull();
  });

  it('decodeLogWith picks the event by the first topic', () => {
    const { data, topics } = log('Moved(uint256,address)', [3n, ADDR]);
    expect(decodeLogWith(events, topics, data)).toMatchObject({ name: 'Moved', args: { value: '3', to: ADDR } });
    expect(decodeLogWith(events, [`0x${'00'.repeat(32)}`], '0x')).toBeNull();
  });
});
