import { JsonRpcProvider, Wallet, parseEther } from 'ethers';
import type { Network } from '../../src/kernel/network';
import type { Stack } from './stack';

/** anvil's default mnemonic accounts #1..#9 (funded with 10000 coins each); #0 is the dev faucet. */
export const ANVIL_KEYS = [
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
  '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6',
];

/** A provider of the test's own, straight to a dev chain (tests may; the service code may not). */
export function providerOf(stack: Stack, network: Network): JsonRpcProvider {
  // Straight to anvil, past a Besu front (which would ask for its token). Receipts are polled every
  // 100 ms (ethers polls every 4 s by default, which would make every wait() last seconds).
  const url = stack.besu?.[network].anvilUrl ?? stack.app.rpcUrls[network]!;
  return new JsonRpcProvider(url, undefined, { cacheTimeout: -1, pollingInterval: 100 });
}

/** Sends coins from a funded anvil account to `to` on a dev chain and waits for it. */
export async function fund(stack: Stack, network: Network, to: string, coins = '100', keyIndex = 0): Promise<void> {
  const wallet = new Wallet(ANVIL_KEYS[keyIndex]!, providerOf(stack, network));
  const tx = await wallet.sendTransaction({ to, value: parseEther(coins) });
  await tx.wait();
}
