import type { ChainRegistry } from '../../chain/chain-registry';
import { classifySendError } from '../../chain/send-outcome';
import type { Network } from '../../kernel/network';
import { AppError } from '../../kernel/errors/app-error';
import type { BroadcastOutcome } from './send-errors';

/** One eth_sendRawTransaction, its failure read by the one taxonomy of node answers (src/chain/send-outcome). */
export async function broadcastOnce(chains: ChainRegistry, network: Network, raw: string): Promise<BroadcastOutcome> {
  try {
    await chains.broadcast(network, raw);
    return { kind: 'sent' };
  } catch (e) {
    // The registry refused before sending (network not available, wrong chain id).
    if (e instanceof AppError) return { kind: 'refused-locally', error: e };
    return classifySendError(e);
  }
}
