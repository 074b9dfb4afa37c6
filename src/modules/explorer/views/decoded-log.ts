import {
  decodeLogWith,
  decodeLogWithAsync,
  isTooLarge,
  listEvents,
  type AbiEvent,
  type DecodedEvent,
} from '../../../chain/abi';

const param = (name: string, type: string, indexed: boolean) => ({ name, type, indexed });
const event = (name: string, inputs: Array<ReturnType<typeof param>>) => ({ type: 'event', name, inputs });

const ERC20 = [
  event('Transfer', [param('from', 'address', true), param('to', 'address', true), param('value', 'uint256', false)]),
  event('Approval', [
    param('owner', 'address', true),
    param('spender', 'address', true),
    param('value', 'uint256', false),
  ]),
];
const ERC721 = [
  event('Transfer', [param('from', 'address', true), param('to', 'address', true), param('tokenId', 'uint256', true)]),
  event('Approval', [
    param('owner', 'address', true),
    param('approved', 'address', true),
    param('tokenId', 'uint256', true),
  ]),
  event('ApprovalForAll', [
    param('owner', 'address', true),
    param('operator', 'address', true),
    param('approved', 'bool', false),
  ]),
];
const ERC1155 = [
  event('TransferSingle', [
    param('operator', 'address', true),
    param('from', 'address', true),
    param('to', 'address', true),
    param('id', 'uint256', false),
    param('value', 'uint256', false),
  ]),
  event('TransferBatch', [
    param('operator', 'address', true),
    param('from', 'address', true),
    param('to', 'address', true),
    param('ids', 'uint256[]', false),
    param('values', 'uint256[]', false),
  ]),
];

/**
 * The token standards' events. ERC-20 and ERC-721 `Transfer` (and `Approval`) share a signature and
 * so a topic: the number of indexed topics tells them apart (decodeEvent checks it), so both stay.
 */
const STANDARD_EVENTS: readonly AbiEvent[] = [...listEvents(ERC20), ...listEvents(ERC721), ...listEvents(ERC1155)];

/** Events of an ABI, parsed once per ABI text. */
const abiEvents = new Map<string, AbiEvent[]>();
const MAX_CACHED_ABIS = 500;

/** By the ABI value itself: a transaction's logs of one contract share its ABI, its text is made once. */
const eventsOfValue = new WeakMap<unknown[], AbiEvent[]>();

function eventsOf(abi: unknown[]): AbiEvent[] {
  const known = eventsOfValue.get(abi);
  if (known) return known;
  const key = JSON.stringify(abi);
  let events = abiEvents.get(key);
  if (!events) {
    events = listEvents(abi);
    if (abiEvents.size >= MAX_CACHED_ABIS) abiEvents.delete(abiEvents.keys().next().value!);
    abiEvents.set(key, events);
  }
  eventsOfValue.set(abi, events);
  return events;
}

/**
 * Decodes a log with the ABI of the portal contract that emitted it when there is one, else (or
 * when that ABI does not know it) as a standard token event; null when neither knows it.
 */
export function decodeLog(abi: unknown[] | null, topics: readonly string[], data: string): DecodedEvent | null {
  if (topics.length === 0) return null;
  try {
    return (abi ? decodeLogWith(eventsOf(abi), topics, data) : null) ?? decodeLogWith(STANDARD_EVENTS, topics, data);
  } catch (e) {
    // Over the decoder's bounds (docs/api.md "Hostile chain data"): the log is shown with its raw data only.
    if (isTooLarge(e)) return null;
    throw e;
  }
}

/** As decodeLog, never holding the event loop long (the bounded decoder's checksums between turns). */
export async function decodeLogAsync(
  abi: unknown[] | null,
  topics: readonly string[],
  data: string,
): Promise<DecodedEvent | null> {
  if (topics.length === 0) return null;
  try {
    return (
      (abi ? await decodeLogWithAsync(eventsOf(abi), topics, data) : null) ??
      (await decodeLogWithAsync(STANDARD_EVENTS, topics, data))
    );
  } catch (e) {
    // Over the decoder's bounds (docs/api.md "Hostile chain data"): the log is shown with its raw data only.
    if (isTooLarge(e)) return null;
    throw e;
  }
}
