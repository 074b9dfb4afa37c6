import { Interface, type InterfaceAbi } from 'ethers';

/** Token standards recognised from a contract's ABI. */
export type TokenStandard = 'ERC-20' | 'ERC-721' | 'ERC-1155';

const REQUIRED: Record<TokenStandard, string[]> = {
  'ERC-1155': [
    'balanceOf(address,uint256)',
    'balanceOfBatch(address[],uint256[])',
    'safeTransferFrom(address,address,uint256,uint256,bytes)',
    'safeBatchTransferFrom(address,address,uint256[],uint256[],bytes)',
    'setApprovalForAll(address,bool)',
    'isApprovedForAll(address,address)',
  ],
  'ERC-721': [
    'balanceOf(address)',
    'ownerOf(uint256)',
    'safeTransferFrom(address,address,uint256)',
    'transferFrom(address,address,uint256)',
    'approve(address,uint256)',
    'setApprovalForAll(address,bool)',
    'getApproved(uint256)',
    'isApprovedForAll(address,address)',
  ],
  'ERC-20': [
    'totalSupply()',
    'balanceOf(address)',
    'transfer(address,uint256)',
    'transferFrom(address,address,uint256)',
    'approve(address,uint256)',
    'allowance(address,address)',
  ],
};

/** Function signatures (`name(type,...)`) of an ABI; an unparsable ABI has none. */
export function functionSignatures(abi: unknown): Set<string> {
  try {
    const iface = new Interface(abi as InterfaceAbi);
    const out = new Set<string>();
    iface.forEachFunction((f) => out.add(f.format('sighash')));
    return out;
  } catch {
    return new Set();
  }
}

/**
 * The token standard an ABI implements, by its required functions. ERC-721 shares
 * transferFrom/approve with ERC-20, so it is told apart by ownerOf; ERC-1155 is checked first.
 */
export function detectTokenStandard(abi: unknown): TokenStandard | null {
  const signatures = functionSignatures(abi);
  for (const standard of ['ERC-1155', 'ERC-721', 'ERC-20'] as const) {
    if (REQUIRED[standard].every((s) => signatures.has(s))) return standard;
  }
  return null;
}

/** solc's evm.deployedBytecode.immutableReferences: byte ranges the constructor fills in. */
export type ImmutableReferences = Record<string, Array<{ start: number; length: number }>>;

function normalise(code: string): string {
  return code.toLowerCase().replace(/^0x/, '');
}

/** Overwrites the immutable ranges with zeros, so code from any constructor run compares equal. */
function maskImmutables(codeHex: string, refs: ImmutableReferences): string {
  let masked = codeHex;
  for (const ranges of Object.values(refs ?? {})) {
    for (const { start, length } of ranges) {
      const from = start * 2;
      const to = from + length * 2;
      if (to > masked.length) continue;
      masked = masked.slice(0, from) + '0'.repeat(to - from) + masked.slice(to);
    }
  }
  return masked;
}

/**
 * Whether the runtime code on chain is the compiled runtime code: byte for byte, except for the
 * immutable variables, whose values only the constructor knows. The metadata hash at the end of
 * the code is compared too, so the sources must be the ones compiled.
 */
export function runtimeCodeMatches(onChain: string, compiled: string, immutables: ImmutableReferences = {}): boolean {
  const chain = normalise(onChain);
  const expected = normalise(compiled);
  if (chain.length === 0 || chain.length !== expected.length) return false;
  return maskImmutables(chain, immutables) === maskImmutables(expected, immutables);
}
