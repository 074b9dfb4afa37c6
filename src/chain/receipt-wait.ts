import type { JsonRpcProvider, TransactionReceipt } from 'ethers';

export interface ReceiptWaitOptions {
  /** Give up (null) after this long. */
  timeoutMs: number;
  /** How often the head is asked for. */
  pollMs: number;
  /**
   * Asked with each receipt check: true when the transaction will not be mined any more (its
   * record ended: cancelled by a replacement at its nonce), and the wait gives up (null) at once.
   */
  ended?: () => Promise<boolean>;
}

/** The receipt is asked for again after this long even when the head has not moved (a node whose receipts lag its head). */
const RECHECK_MS = 1_000;

/**
 * Waits for a transaction's receipt, checking again each time the node's head moves.
 *
 * Not ethers' `waitForTransaction`: it checks once, then listens for the *next* block event, and
 * its block poller takes the head it first sees as its starting point without announcing it. A
 * transaction mined between that check and the poller's first answer is then noticed only when
 * another block comes, and a QBFT network with an empty-block period makes no block while idle:
 * the wait would run into its timeout with the transaction long mined. Here the head is read
 * before every receipt check, so a block mined after a check always has a higher number than the
 * head that check covered, and triggers another one.
 *
 * A node that cannot tell its head at the start is an error thrown (the caller answers that the
 * node is away), as with ethers. Every later failure, and any failure of a receipt check, is tried
 * again at the next poll until the timeout: the transaction may be mined meanwhile.
 */
export async function waitForReceipt(
  provider: JsonRpcProvider,
  txHash: string,
  opts: ReceiptWaitOptions,
): Promise<TransactionReceipt | null> {
  const deadline = Date.now() + opts.timeoutMs;
  let checked = null as { head: number; at: number } | null;
  let first = true;
  for (;;) {
    let head: number | undefined;
    try {
      head = await provider.getBlockNumber();
    } catch (e) {
      if (first) throw e;
    }
    first = false;
    if (head !== undefined && (head !== checked?.head || Date.now() - checked.at >= RECHECK_MS)) {
      const at = Date.now();
      const receipt = await provider.getTransactionReceipt(txHash).catch(() => undefined);
      if (receipt) return receipt;
      if (receipt === null) checked = { head, at };
      if (opts.ended && (await opts.ended().catch(() => false))) return null;
    }
    const left = deadline - Date.now();
    if (left <= 0) return null;
    await new Promise((resolve) => setTimeout(resolve, Math.min(opts.pollMs, left)));
  }
}
