import type { Network } from '../../../kernel/network';

type Waiter = { network: Network; wake: () => void };

/**
 * "Blocks were indexed", by network, for one app: its indexer notifies after each committed batch
 * and readers of the index that follow it (contract event subscriptions) wait on it instead of polling.
 */
export class IndexSignal {
  private readonly versions: Record<Network, number> = { testnet: 0, mainnet: 0 };
  private readonly waiters = new Set<Waiter>();

  /** A counter that moves with every notification: read it before reading the index, wait with it after. */
  version(network: Network): number {
    return this.versions[network];
  }

  /** Whether anyone waits on the network now. */
  hasWaiters(network: Network): boolean {
    for (const w of this.waiters) if (w.network === network) return true;
    return false;
  }

  notify(network: Network): void {
    this.versions[network]++;
    for (const w of [...this.waiters]) if (w.network === network) w.wake();
  }

  /**
   * Resolves once the network was notified after `since` (at once if it already was), after `ms`, or
   * when `cancel` settles, whichever comes first.
   */
  wait(network: Network, since: number, ms: number, cancel?: Promise<unknown>): Promise<void> {
    if (this.versions[network] !== since) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const waiter: Waiter = {
        network,
        wake: () => {
          clearTimeout(timer);
          this.waiters.delete(waiter);
          resolve();
        },
      };
      const timer = setTimeout(waiter.wake, ms);
      timer.unref();
      this.waiters.add(waiter);
      cancel?.then(waiter.wake, waiter.wake);
    });
  }
}
