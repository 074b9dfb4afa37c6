/** The two networks the service serves, and their chain ids (docs/api.md). */
export type Network = 'testnet' | 'mainnet';
export const NETWORKS: readonly Network[] = ['testnet', 'mainnet'];
export const CHAIN_IDS: Record<Network, number> = { testnet: 17991, mainnet: 1991 };
