import { EventFragment, Indexed, Interface, type ParamType } from 'ethers';
import { AppError } from '../../errors/app-error';
import { toJsonValue } from './abi-result';

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

/** The ABI coder of one event (an Interface of that fragment alone). */
const coders = new WeakMap<EventFragment, Interface>();
function coderOf(fragment: EventFragment): Interface {
  let coder = coders.get(fragment);
  if (!coder) {
    coder = new Interface([fragment]);
    coders.set(fragment, coder);
  }
  return coder;
}

/** One event parameter's value: an indexed string, bytes, array or tuple is only its keccak256 topic. */
function paramValue(param: ParamType, value: unknown): unknown {
  if (Indexed.isIndexed(value)) return value.hash;
  return toJsonValue(param, value);
}

/**
 * Decodes a log with an event of its ABI; null when the log is not that event (another topic, another
 * number of indexed topics, data that does not decode).
 */
export function decodeEvent(event: AbiEvent, topics: readonly string[], data: string): DecodedEvent | null {
  if ((topics[0] ?? '').toLowerCase() !== event.topic) return null;
  const indexed = event.fragment.inputs.filter((p) => p.indexed).length;
  if (topics.length !== indexed + 1) return null;
  try {
    const values = coderOf(event.fragment).decodeEventLog(event.fragment, data, [...topics]);
    const inputs = event.fragment.inputs;
    const names = inputs.map((p) => p.name);
    const args: Record<string, unknown> = {};
    inputs.forEach((param, i) => {
      const key = param.name && names.indexOf(param.name) === names.lastIndexOf(param.name) ? param.name : String(i);
      args[key] = paramValue(param, values[i]);
    });
    return { name: event.name, signature: event.signature, args };
  } catch {
    return null;
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
