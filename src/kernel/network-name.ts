import { registerEnumType } from 'type-graphql';
import { CHAIN_IDS, type Network } from './network';

/** The two networks of the service, as a GraphQL enum (values are the REST `network` strings). */
export enum NetworkName {
  testnet = 'testnet',
  mainnet = 'mainnet',
}

registerEnumType(NetworkName, {
  name: 'Network',
  description: 'EVM network: `testnet` (chain id 17991) or `mainnet` (chain id 1991).',
  valuesConfig: {
    testnet: { description: `Test network, chain id ${CHAIN_IDS.testnet}` },
    mainnet: { description: `Main network, chain id ${CHAIN_IDS.mainnet}` },
  },
});

export const toNetwork = (n: NetworkName): Network => n;
