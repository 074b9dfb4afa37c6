import { EventFragment, ParamType } from 'ethers';
import { AppError } from '../../kernel/errors/app-error';
import { eventArgs } from './abi-json';
import { AbiDataError, decodeParams, decodeParamsAsync } from './bounded-decoder';

/** One event of a contract ABI that logs can be matched to (anonymous events have no topic to match). */
export interface AbiEvent {
  name: string;
  /** Canonical signature, e.g. `Transfer(address,address,uint256)`. */
  signature: string;
  /** keccak256 of the signature: the log's first topic. */
  topic: string;
  fragment: EventFragment;
}

/** An event log decoded with its ABI event. */
export interface DecodedEvent {
  name: string;
  signature: string;
  /** Keyed by the parameter names (by position when a name is empty or repeated), values as query results are. */
  args: Record<string, unknown>;
}

/** The ABI entries that are non-anonymous events, in ABI order, each signature once. */
export function listEvents(abi: unknown[]): AbiEvent[] {
  const events: AbiEvent[] = [];
  const seen = new Set<string>();
  for (const entry of abi) {
    if (entry === null || typeof entry !== 'object' || (entry as { type?: unknown }).type !== 'event') continue;
    let fragment: EventFragment;
    try {
      fragment = EventFragment.from(entry);
    } catch {
      continue; // an entry ethers cannot read cannot match a log either
    }
    if (fragment.anonymous) continue;
    const signature = fragment.format('sighash');
    if (seen.has(signature)) continue;
    seen.add(signature);
    events.push({ name: fragment.name, signature, topic: fragment.topicHash.toLowerCase(), fragment });
  }
  return events;
}

/** Longest event name or signature looked up. */
export const MAX_EVENT_LENGTH = 1024;

/**
 * Looks an event up by name (when no other event shares it) or full signature; 400
 * AMBIGUOUS_METHOD for a shared name, 404 METHOD_NOT_FOUND for one the ABI does not declare.
 */
export function findEvent(events: readonly AbiEvent[], event: string): AbiEvent {
  const wanted = event.trim();
  // No ABI signature is this long; refused before ethers parses it.
  if (wanted.length > MAX_EVENT_LENGTH) {
    throw new AppError('VALIDATION_FAILED', `event must be at most ${MAX_EVENT_LENGTH} characters`, {
      field: 'event',
    });
  }
  if (wanted.includes('(')) {
    const signature = canonicalEventSignature(wanted);
    const found = events.find((e) => e.signature === signature);
    if (found) return found;
    throw new AppError('METHOD_NOT_FOUND', `The contract declares no event ${signature}`, { event });
  }
  const named = events.filter((e) => e.name === wanted);
  if (named.length === 1) return named[0]!;
  if (named.length > 1) {
    const signatures = named.map((e) => e.signature);
    throw new AppError(
      'AMBIGUOUS_METHOD',
      `The contract declares several events named ${wanted}; name one by its full signature (${signatures.join(', ')})`,
      { event, signatures },
    );
  }
  throw new AppError('METHOD_NOT_FOUND', `The contract declares no event named ${wanted}`, { event });
}

/** `Transfer(address, uint)` or one with parameter names → `Transfer(address,uint256)`; as sent when it does not parse. */
function canonicalEventSignature(signature: string): string {
  try {
    return EventFragment.from(`event ${signature}`).format('sighash');
  } catch {
    return signature.replace(/\s+/g, '');
  }
}

/** How one event's log is read: the types of its topics (an indexed string, bytes, array or tuple is its bytes32 hash) and of its data. */
interface EventLayout {
  topics: ParamType[];
  data: ParamType[];
}
const layouts = new WeakMap<EventFragment, EventLayout>();
function layoutOf(fragment: EventFragment): EventLayout {
  let layout = layouts.get(fragment);
  if (!layout) {
    const hashed = (p: ParamType) => p.isArray() || p.isTuple() || p.type === 'string' || p.type === 'bytes';
    layout = {
      topics: fragment.inputs
        .filter((p) => p.indexed)
        .map((p) => (hashed(p) ? ParamType.from({ type: 'bytes32', name: p.name }) : p)),
      data: fragment.inputs.filter((p) => !p.indexed),
    };
    layouts.set(fragment, layout);
  }
  return layout;
}

const TOPIC = /^0x[0-9a-fA-F]{64}$/;

/** The topics' data when the log can be `event` (its topic, its number of indexed topics), else null. */
function topicData(event: AbiEvent, topics: readonly string[]): string | null {
  if ((topics[0] ?? '').toLowerCase() !== event.topic) return null;
  if (topics.length !== layoutOf(event.fragment).topics.length + 1) return null;
  if (!topics.every((t) => TOPIC.test(t))) return null;
  return `0x${topics
    .slice(1)
    .map((t) => t.slice(2))
    .join('')}`;
}

/** The decoded event from its indexed and its data values, in parameter order, its args as abi-json.ts keys them. */
function assemble(event: AbiEvent, indexed: unknown[], plain: unknown[]): DecodedEvent {
  const inputs = event.fragment.inputs;
  let i = 0;
  let d = 0;
  const values = inputs.map((param) => (param.indexed ? indexed[i++] : plain[d++]));
  return { name: event.name, signature: event.signature, args: eventArgs(inputs, values) };
}

/**
 * Decodes a log with an event of its ABI; null when the log is not that event (another topic, another
 * number of indexed topics, data that does not decode). Data over the decoder's bounds → 422
 * RESULT_TOO_LARGE (thrown): the caller shows the log undecoded.
 */
export function decodeEvent(event: AbiEvent, topics: readonly string[], data: string): DecodedEvent | null {
  const indexedData = topicData(event, topics);
  if (indexedData === null) return null;
  const layout = layoutOf(event.fragment);
  try {
    return assemble(event, decodeParams(layout.topics, indexedData), decodeParams(layout.data, data, { loose: true }));
  } catch (e) {
    if (e instanceof AbiDataError) return null;
    throw e;
  }
}

/** As decodeEvent, never holding the event loop long (decodeParamsAsync): for lists, pushes and webhooks. */
export async function decodeEventAsync(
  event: AbiEvent,
  topics: readonly string[],
  data: string,
): Promise<DecodedEvent | null> {
  const indexedData = topicData(event, topics);
  if (indexedData === null) return null;
  const layout = layoutOf(event.fragment);
  try {
    return assemble(
      event,
      decodeParams(layout.topics, indexedData),
      await decodeParamsAsync(layout.data, data, { loose: true }),
    );
  } catch (e) {
    if (e instanceof AbiDataError) return null;
    throw e;
  }
}

/** Decodes a log with whichever of `events` its first topic names; null when none matches. */
export function decodeLogWith(
  events: readonly AbiEvent[],
  topics: readonly string[],
  data: string,
): DecodedEvent | null {
  const topic0 = (topics[0] ?? '').toLowerCase();
  for (const event of events) {
    if (event.topic !== topic0) continue;
    const decoded = decodeEvent(event, topics, data);
    if (decoded) return decoded;
  }
  return null;
}

/** As decodeLogWith, never holding the event loop long (decodeEventAsync). */
export async function decodeLogWithAsync(
  events: readonly AbiEvent[],
  topics: readonly string[],
  data: string,
): Promise<DecodedEvent | null> {
  const topic0 = (topics[0] ?? '').toLowerCase();
  for (const event of events) {
    if (event.topic !== topic0) continue;
    const decoded = await decodeEventAsync(event, topics, data);
    if (decoded) return decoded;
  }
  return null;
}
