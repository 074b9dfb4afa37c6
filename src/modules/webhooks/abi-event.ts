import { EventFragment } from 'ethers';
import { AppError } from '../../errors/app-error';

/** The events of a contract ABI, by canonical signature (`Transfer(address,address,uint256)`). */
function listEvents(abi: unknown[]): EventFragment[] {
  const seen = new Map<string, EventFragment>();
  for (const entry of abi) {
    if (entry === null || typeof entry !== 'object' || (entry as { type?: unknown }).type !== 'event') continue;
    const fragment = EventFragment.from(entry);
    seen.set(fragment.format('sighash'), fragment);
  }
  return [...seen.values()];
}

/**
 * The canonical signature of the ABI event `event` names: a name when no other event shares it,
 * else a full signature (400 AMBIGUOUS_METHOD for a shared name, 404 METHOD_NOT_FOUND for none).
 */
export function findEventSignature(abi: unknown[], event: string): string {
  const events = listEvents(abi);
  if (event.includes('(')) {
    let wanted: string;
    try {
      wanted = EventFragment.from(`event ${event}`).format('sighash');
    } catch {
      wanted = event.replace(/\s+/g, '');
    }
    if (events.some((e) => e.format('sighash') === wanted)) return wanted;
    throw new AppError('METHOD_NOT_FOUND', `The contract has no event ${wanted}`, { event });
  }
  const named = events.filter((e) => e.name === event);
  if (named.length === 1) return named[0]!.format('sighash');
  if (named.length > 1) {
    const signatures = named.map((e) => e.format('sighash'));
    throw new AppError(
      'AMBIGUOUS_METHOD',
      `The contract has several events named ${event}; name one by its full signature (${signatures.join(', ')})`,
      { event, signatures },
    );
  }
  throw new AppError('METHOD_NOT_FOUND', `The contract has no event named ${event}`, { event });
}
