import { nodeUnreachableError } from '../../chain/chain-registry';
import { decodeRevert, isInsufficientFunds } from '../../chain/revert-decoder';
import type { SendOutcome } from '../../chain/send-outcome';
import type { Network } from '../../kernel/network';
import { AppError } from '../../kernel/errors/app-error';
import type { SendRequest } from './send-request';

/** What became of one broadcast. */
export type BroadcastOutcome = { kind: 'sent' } | { kind: 'refused-locally'; error: AppError } | SendOutcome;

/** Turns a node error into the domain error the caller should see. */
export async function translateSendError(
  e: unknown,
  req: Pick<SendRequest, 'network' | 'iface' | 'signer'>,
): Promise<unknown> {
  if (e instanceof AppError) return e;
  if (isInsufficientFunds(e)) {
    return new AppError('INSUFFICIENT_FUNDS', `The wallet ${req.signer.address} cannot pay for this transaction`, {
      address: req.signer.address,
    });
  }
  // The bounded decoder (docs/api.md "Hostile chain data"): over its bounds → 422 RESULT_TOO_LARGE.
  const revert = await decodeRevert(e, req.iface);
  if (revert) {
    return new AppError('EXECUTION_REVERTED', `Execution reverted: ${revert.reason}`, {
      reason: revert.reason,
      ...(revert.error ? { error: revert.error } : {}),
      ...(revert.panicCode !== undefined ? { panicCode: revert.panicCode } : {}),
    });
  }
  return nodeUnreachableError(req.network, e) ?? e;
}

function refused(network: Network, reason: string): AppError {
  return new AppError('TRANSACTION_REFUSED', `The ${network} node refused the transaction: ${reason}`, {
    network,
    reason,
  });
}

/** The error a caller sees for a transaction the node did not take. */
export function refusalError(
  req: Pick<SendRequest, 'network' | 'signer'>,
  outcome: Exclude<BroadcastOutcome, { kind: 'sent' | 'unknown' | 'already-known' }>,
): AppError {
  switch (outcome.kind) {
    case 'refused-locally':
      return outcome.error;
    case 'unauthorized':
      return new AppError('UPSTREAM_RPC_ERROR', `The ${req.network} node refused the service's credentials`, {
        network: req.network,
      });
    case 'refused':
      if (outcome.insufficientFunds) {
        return new AppError(
          'INSUFFICIENT_FUNDS',
          `The wallet ${req.signer.address} cannot pay for this transaction (${outcome.reason})`,
          { address: req.signer.address, reason: outcome.reason },
        );
      }
      return refused(req.network, outcome.reason);
    case 'nonce-taken':
      return refused(req.network, outcome.reason);
  }
}
