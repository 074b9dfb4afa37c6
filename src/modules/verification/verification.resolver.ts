import { Arg, Query, Resolver } from 'type-graphql';
import { parseAddress } from '../../kernel/address';
import { NetworkName } from '../../kernel/network-name';
import { AddressContractLookup, VerificationConfig } from './verification.types';
import type { VerificationService } from './verification.service';

@Resolver()
export class VerificationResolver {
  constructor(private readonly verification: VerificationService) {}

  @Query(() => VerificationConfig, {
    description: 'The compilers and EVM versions a verification may state (docs/api.md, "Verification").',
  })
  verificationConfig(): VerificationConfig {
    return this.verification.config();
  }

  @Query(() => AddressContractLookup, {
    description: 'The verified contract at an address: its sources, settings, ABI and creation.',
  })
  async addressContract(
    @Arg('address', { description: 'Address: 0x and 40 hexadecimal characters, any letter case.' }) address: string,
    @Arg('network', () => NetworkName, {
      nullable: true,
      defaultValue: NetworkName.mainnet,
      description: 'Network to read: `mainnet` (default) or `testnet`.',
    })
    network: NetworkName | null,
  ): Promise<AddressContractLookup> {
    const contract = await this.verification.contractAt(network ?? NetworkName.mainnet, parseAddress(address));
    if (!contract) return { found: false, contract: null };
    return {
      found: true,
      contract: {
        address: contract.address,
        network: contract.network,
        name: contract.name,
        match: contract.match,
        compilerVersion: contract.compilerVersion,
        evmVersion: contract.evmVersion,
        optimizer: contract.optimizer,
        sources: contract.sources,
        abi: contract.abi,
        constructorArgs: contract.constructorArgs,
        creationTxHash: contract.creationTxHash,
        creator: contract.creator,
        verifiedAt: contract.verifiedAt,
      },
    };
  }
}
