/* eslint-disable @typescript-eslint/no-explicit-any -- Etherscan-shaped answers are asserted field by field */
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { AbiCoder, Wallet } from 'ethers';
import { ANVIL_KEYS, providerOf } from './kit/chain';
import { newKey } from './kit/flows';
import { client } from './kit/http';
import { login } from './kit/login';
import { startStack, type Stack } from './kit/stack';

// `forge verify-contract` (npm @foundry-rs/forge) against the Etherscan-compatible API
// (docs/api.md, "Etherscan-compatible API"), offline: forge compiles with solc-js through
// tests/kit/solc-cli.cjs (no svm download), deploys with `forge create` through the service's
// JSON-RPC door and verifies with `--verifier etherscan` and `--verifier blockscout`, each with
// `--verifier-url`. verify-contract takes its compiler from svm's directory (a release missing
// there is downloaded): forge runs with a HOME of its own whose ~/.svm/0.8.20/solc-0.8.20 is
// that same solc command line.

const run = promisify(execFile);
const FORGE = process.env.FORGE_BIN ?? path.resolve(__dirname, '../node_modules/.bin/forge');
const SOLC_CLI = path.resolve(__dirname, 'kit/solc-cli.cjs');
const haveForge = existsSync(FORGE);
if (!haveForge) {
  const message = `forge is not installed (${FORGE}): add the devDependency @foundry-rs/forge to run verification-tools.test.ts`;
  // In CI a missing tool is a failure, not a skip.
  if (process.env.CI) throw new Error(message);
  console.warn(`SKIPPED: ${message}`);
}
const describeForge = haveForge ? describe : describe.skip;

const COUNTER = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

contract Counter {
    uint256 public immutable start;
    uint256 public number;
    event Incremented(address indexed by, uint256 number);

    constructor(uint256 start_) {
        start = start_;
        number = start_;
    }

    function increment() public {
        number++;
        emit Incremented(msg.sender, number);
    }
}
`;

let stack: Stack;
let project: string;
/** forge's HOME: ~/.svm holds the solc 0.8.20 that verify-contract looks for. */
let home: string;
/** The service's JSON-RPC door with a write key: how teams deploy with their tools. */
let doorUrl: string;

/** forge's output; npm's `forge` wrapper exits 0 whatever forge's status, so tests read the output. */
async function forge(args: string[]): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await run(FORGE, args, {
      cwd: project,
      timeout: 180_000,
      env: { ...process.env, HOME: home, FOUNDRY_DISABLE_NIGHTLY_WARNING: '1', NO_COLOR: '1' },
    });
    return { code: 0, out: `${stdout}\n${stderr}` };
  } catch (e: any) {
    return { code: typeof e.code === 'number' ? e.code : 1, out: `${e.stdout ?? ''}\n${e.stderr ?? ''}` };
  }
}

async function deploy(start: bigint): Promise<string> {
  const res = await forge([
    'create',
    'src/Counter.sol:Counter',
    '--rpc-url',
    doorUrl,
    '--private-key',
    ANVIL_KEYS[2]!,
    '--broadcast',
    '--constructor-args',
    start.toString(),
  ]);
  expect(res.out).toMatch(/Deployed to: 0x[0-9a-fA-F]{40}/);
  return /Deployed to: (0x[0-9a-fA-F]{40})/.exec(res.out)![1]!;
}

/**
 * `forge verify-contract --watch` as a team runs it. `--compiler-version` with its commit and
 * `--compilation-profile default` keep forge offline: with a plain version (or the one the build
 * cache keys its artifacts by) forge resolves the commit from
 * https://binaries.soliditylang.org/bin/list.txt before submitting.
 */
function verifyContract(
  address: string,
  start: bigint,
  verifier: 'etherscan' | 'blockscout',
  extra: string[] = [],
): Promise<{ code: number; out: string }> {
  const target =
    verifier === 'etherscan'
      ? ['--verifier', 'etherscan', '--verifier-url', `${stack.url}/api/explorer/etherscan/api?chainid=17991`]
      : ['--verifier', 'blockscout', '--verifier-url', `${stack.url}/api/explorer/etherscan/testnet/api`];
  return forge([
    'verify-contract',
    address,
    'src/Counter.sol:Counter',
    '--chain',
    '17991',
    ...target,
    '--compiler-version',
    'v0.8.20+commit.a1b79de6',
    '--compilation-profile',
    'default',
    '--constructor-args',
    AbiCoder.defaultAbiCoder().encode(['uint256'], [start]),
    '--watch',
    ...extra,
  ]);
}

beforeAll(async () => {
  if (!haveForge) return;
  stack = await startStack();
  const api = client(stack.url);
  const dev = await login(api, stack.ca);
  const key = await newKey(api, dev, { name: 'deployer', scopes: ['read', 'write'] });
  doorUrl = `${stack.url}/rpc/testnet/${key.apiKey}`;
  project = mkdtempSync(path.join(tmpdir(), 'forge-verify-'));
  home = mkdtempSync(path.join(tmpdir(), 'forge-home-'));
  const svmSolc = path.join(home, '.svm/0.8.20/solc-0.8.20');
  mkdirSync(path.dirname(svmSolc), { recursive: true });
  writeFileSync(svmSolc, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(SOLC_CLI)} "$@"\n`);
  chmodSync(svmSolc, 0o755);
  mkdirSync(path.join(project, 'src'));
  writeFileSync(path.join(project, 'src/Counter.sol'), COUNTER);
  writeFileSync(
    path.join(project, 'foundry.toml'),
    [
      '[profile.default]',
      'src = "src"',
      'out = "out"',
      'libs = []',
      `solc = "${SOLC_CLI}"`,
      'offline = true',
      'evm_version = "paris"',
      'optimizer = true',
      'optimizer_runs = 200',
      '',
      // forge takes the API key of a chain it does not know from here, not from --etherscan-api-key.
      '[etherscan]',
      `qbft = { key = "unused", chain = 17991, url = "${stack.url}/api/explorer/etherscan/api?chainid=17991" }`,
      '',
    ].join('\n'),
  );
  const build = await forge(['build', '--build-info']);
  expect(build.out).toMatch(/Compiler run successful/);
}, 240_000);

afterAll(async () => {
  await stack?.stop();
  if (project) rmSync(project, { recursive: true, force: true });
  if (home) rmSync(home, { recursive: true, force: true });
});

describeForge('forge verify-contract against the Etherscan-compatible API', () => {
  it('--verifier etherscan on the shared base URL: verified, then already verified; the explorer decodes it', async () => {
    const address = await deploy(5n);
    const first = await verifyContract(address, 5n, 'etherscan');
    expect(first.out).toMatch(/Response: `OK`\s+Details: `Pass - Verified`/);
    expect(first.out).toMatch(/Contract successfully verified/);
    // Verified by forge's first status check: no second check 15 s later.
    expect(first.out).not.toMatch(/Pending in queue/);
    // forge asks getabi first and stops on a verified ABI.
    const again = await verifyContract(address, 5n, 'etherscan');
    expect(again.out).toMatch(/is already verified\. Skipping verification\./);
    // Submitting anyway: forge reports "already verified" on the API's exact words.
    const forced = await verifyContract(address, 5n, 'etherscan', ['--skip-is-verified-check']);
    expect(forced.out).toMatch(/Contract source code already verified/);

    const body = await (await fetch(`${stack.url}/api/explorer/address/${address}/contract?network=testnet`)).json();
    expect(body.contract).toMatchObject({
      name: 'Counter',
      match: 'full',
      compilerVersion: 'v0.8.20+commit.a1b79de6',
      constructorArgs: AbiCoder.defaultAbiCoder().encode(['uint256'], [5n]).slice(2),
    });
    expect(body.contract.sources['src/Counter.sol']).toBe(COUNTER);

    const wallet = new Wallet(ANVIL_KEYS[2]!, providerOf(stack, 'testnet'));
    const tx = await wallet.sendTransaction({ to: address, data: '0xd09de08a' }); // increment()
    await tx.wait();
    const seen = await (await fetch(`${stack.url}/api/explorer/tx/${tx.hash}?network=testnet`)).json();
    expect(seen.transaction.method).toMatchObject({ name: 'increment', signature: 'increment()' });
    expect(seen.transaction.logs[0].decoded).toMatchObject({ event: 'Incremented', args: { number: '6' } });
  }, 300_000);

  it('--verifier blockscout on the network base URL: verified, then already verified', async () => {
    const address = await deploy(7n);
    const first = await verifyContract(address, 7n, 'blockscout');
    expect(first.out).toMatch(/Details: `Pass - Verified`/);
    const again = await verifyContract(address, 7n, 'blockscout');
    expect(again.out).toMatch(/is already verified\. Skipping verification\./);
  }, 300_000);

  it('a wrong source fails with the reason', async () => {
    const address = await deploy(8n);
    writeFileSync(path.join(project, 'src/Counter.sol'), COUNTER.replace('number++;', 'number += 2;'));
    try {
      const res = await verifyContract(address, 8n, 'etherscan');
      expect(res.out).toContain(
        'Details: `Fail - Unable to verify. the compiled runtime code is 308 bytes long, the code at the address 305 bytes`',
      );
      expect(res.out).toMatch(/Checking verification result failed[\s\S]*Contract verification failed/);
    } finally {
      writeFileSync(path.join(project, 'src/Counter.sol'), COUNTER);
    }
  }, 300_000);
});
