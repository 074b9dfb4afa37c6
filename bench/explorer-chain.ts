// Builds a dev chain for the explorer benchmarks: many blocks, a few transactions each, logs, and
// one "hot" address with thousands of transactions.
import { getAddress, HDNodeWallet, Interface } from 'ethers';
import { rpc, rpcBatch } from '../tests/kit/json-rpc';

// solc has no type declarations; it compiles the event-emitting contract the chain calls.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const solc = require('solc') as { compile(input: string): string };

const MNEMONIC = 'test test test test test test test test test test test junk';
/** anvil's unlocked dev accounts #0..#9. */
export const DEV_ACCOUNTS = Array.from(
  { length: 10 },
  (_, i) => HDNodeWallet.fromPhrase(MNEMONIC, undefined, `m/44'/60'/0'/0/${i}`).address,
);
/** The address with many transactions (every other block sends one). */
export const HOT = DEV_ACCOUNTS[1]!;
/** An address with one transaction, early in the chain: a scan never finds enough and reads every block. */
export const QUIET = DEV_ACCOUNTS[7]!;

const PINGER = `// SPDX-License-Identifier: MIT
pragma solidity 0.8.20;
contract Pinger {
  event Ping(address indexed from, uint256 value);
  function ping(uint256 value) external { emit Ping(msg.sender, value); }
}`;

function compilePinger(): { abi: unknown[]; bytecode: string } {
  const out = JSON.parse(
    solc.compile(
      JSON.stringify({
        language: 'Solidity',
        sources: { 'Pinger.sol': { content: PINGER } },
        settings: {
          evmVersion: 'paris',
          optimizer: { enabled: true, runs: 200 },
          outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
        },
      }),
    ),
  );
  const c = out.contracts['Pinger.sol'].Pinger;
  return { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` };
}

export { rpc, rpcBatch };

const hex = (n: number | bigint) => `0x${n.toString(16)}`;

/**
 * Mines `blocks` blocks on an anvil node without interval mining, three transactions per block:
 * a value transfer from HOT (every other block; another account otherwise), a contract call that
 * emits a log, and a transfer between two other accounts. QUIET sends one transaction in block 2.
 */
export async function generateChain(url: string, blocks: number, onProgress?: (done: number) => void): Promise<void> {
  const pinger = compilePinger();
  const [deployer] = DEV_ACCOUNTS;
  const deployHash = (await rpc(url, 'eth_sendTransaction', [
    { from: deployer, data: pinger.bytecode, gas: hex(500_000) },
  ])) as string;
  await rpc(url, 'evm_mine');
  const receipt = (await rpc(url, 'eth_getTransactionReceipt', [deployHash])) as { contractAddress: string };
  const pingerAddress = getAddress(receipt.contractAddress);
  const iface = new Interface(pinger.abi as string[]);
  await rpc(url, 'eth_sendTransaction', [{ from: QUIET, to: DEV_ACCOUNTS[8], value: '0x1', gas: hex(21_000) }]);
  await rpc(url, 'evm_mine');

  // One batch of transactions, then the mine call: anvil answers a batch's entries concurrently, so
  // a mine inside the same batch could run before the sends.
  for (let i = 2; i < blocks; i++) {
    const sender = i % 2 === 0 ? HOT : DEV_ACCOUNTS[3];
    const recipient = getAddress(`0x${(0xb0000 + (i % 5000)).toString(16).padStart(40, '0')}`);
    await rpcBatch(url, [
      ['eth_sendTransaction', [{ from: sender, to: recipient, value: hex(i), gas: hex(21_000) }]],
      [
        'eth_sendTransaction',
        [{ from: DEV_ACCOUNTS[4], to: pingerAddress, data: iface.encodeFunctionData('ping', [i]), gas: hex(60_000) }],
      ],
      ['eth_sendTransaction', [{ from: DEV_ACCOUNTS[5], to: DEV_ACCOUNTS[6], value: '0x1', gas: hex(21_000) }]],
    ]);
    await rpc(url, 'evm_mine');
    if (i % 1000 === 0) onProgress?.(i);
  }
}

/** Percentile of sorted numbers (nearest rank). */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export const round = (x: number, digits = 1) => Math.round(x * 10 ** digits) / 10 ** digits;
