/* eslint-disable @typescript-eslint/no-explicit-any -- answers are asserted field by field */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Wallet } from 'ethers';
import { ANVIL_KEYS, providerOf } from './kit/chain';
import { newKey } from './kit/flows';
import { client } from './kit/http';
import { login } from './kit/login';
import { startStack, type Stack } from './kit/stack';

// `hardhat verify` (Hardhat 3, @nomicfoundation/hardhat-verify) against the Etherscan-compatible
// API (docs/api.md, "Etherscan-compatible API"), offline: the compiler is solc-js from the npm
// `solc` package (`solidity.path`), the chain descriptor names the explorer, so nothing is
// downloaded. Hardhat deploys with hardhat-ethers through the service's JSON-RPC door, then verifies.

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '..');
/** Where hardhat, hardhat-verify and hardhat-ethers are installed (the repo's devDependencies). */
const MODULES = process.env.HARDHAT_MODULES ?? path.join(ROOT, 'node_modules');
const HARDHAT_CLI = path.join(MODULES, 'hardhat/dist/src/cli.js');
/** Hardhat 3 needs Node.js 22.13 or later: the repo's own (npm `node`) when present. */
const NODE = existsSync(path.join(ROOT, 'node_modules/.bin/node'))
  ? path.join(ROOT, 'node_modules/.bin/node')
  : process.execPath;
/**
 * Hardhat's simulator (EDR) ships as a package per platform that asks for Node.js 22 or later: npm
 * running on an older Node.js skips it (`.ci/run` installs again with the project's own Node.js).
 */
const haveEdr = (() => {
  try {
    return readdirSync(path.join(MODULES, '@nomicfoundation')).some((name) =>
      name.startsWith(`edr-${process.platform}-${process.arch}`),
    );
  } catch {
    return false;
  }
})();
const haveHardhat =
  haveEdr &&
  ['hardhat', '@nomicfoundation/hardhat-verify', '@nomicfoundation/hardhat-ethers'].every((p) =>
    existsSync(path.join(MODULES, p, 'package.json')),
  );
if (!haveHardhat) {
  const message = haveEdr
    ? `hardhat 3, @nomicfoundation/hardhat-verify and @nomicfoundation/hardhat-ethers are not installed in ${MODULES}: add them as devDependencies to run verification-hardhat.test.ts`
    : `hardhat's simulator for ${process.platform}-${process.arch} (@nomicfoundation/edr-*) is not installed: npm skipped it on a Node.js older than 22; install with the project's own Node.js: PATH="$PWD/node_modules/.bin:$PATH" npm ci`;
  // In CI a missing tool is a failure, not a skip.
  if (process.env.CI) throw new Error(message);
  console.warn(`SKIPPED: ${message}`);
}
const describeHardhat = haveHardhat ? describe : describe.skip;

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

/** The same contract for a second compiler: hardhat builds this file with solc 0.8.24 (an override). */
const COUNTER24 = COUNTER.replace('pragma solidity ^0.8.20;', 'pragma solidity 0.8.24;').replace(
  'contract Counter {',
  'contract Counter24 {',
);

let stack: Stack;
let project: string;
/** The service's JSON-RPC door with a write key: how teams deploy with their tools. */
let doorUrl: string;

async function hardhat(args: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await run(NODE, [HARDHAT_CLI, ...args], {
      cwd: project,
      timeout: 180_000,
      env: {
        ...process.env,
        HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true',
        DO_NOT_TRACK: '1',
        NO_COLOR: '1',
        FORCE_COLOR: '0',
        ...env,
      },
    });
    return { code: 0, out: `${stdout}\n${stderr}` };
  } catch (e: any) {
    return { code: typeof e.code === 'number' ? e.code : 1, out: `${e.stdout ?? ''}\n${e.stderr ?? ''}` };
  }
}

async function deploy(start: bigint, name = 'Counter'): Promise<string> {
  const res = await hardhat(['run', 'scripts/deploy.js', '--network', 'qbft'], { START: start.toString(), NAME: name });
  expect(res.out).toMatch(/Deployed to: 0x[0-9a-fA-F]{40}/);
  return /Deployed to: (0x[0-9a-fA-F]{40})/.exec(res.out)![1]!;
}

const verify = (address: string, start: bigint) =>
  hardhat(['verify', 'etherscan', '--network', 'qbft', address, start.toString()]);

beforeAll(async () => {
  if (!haveHardhat) return;
  stack = await startStack();
  const api = client(stack.url);
  const dev = await login(api, stack.ca);
  const key = await newKey(api, dev, { name: 'deployer', scopes: ['read', 'write'] });
  doorUrl = `${stack.url}/rpc/testnet/${key.apiKey}`;
  project = mkdtempSync(path.join(tmpdir(), 'hardhat-verify-'));
  symlinkSync(MODULES, path.join(project, 'node_modules'));
  mkdirSync(path.join(project, 'contracts'));
  mkdirSync(path.join(project, 'scripts'));
  writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'hh', type: 'module', private: true }));
  writeFileSync(path.join(project, 'contracts/Counter.sol'), COUNTER);
  writeFileSync(path.join(project, 'contracts/Counter24.sol'), COUNTER24);
  writeFileSync(
    path.join(project, 'scripts/deploy.js'),
    [
      'import { network } from "hardhat";',
      'const { ethers } = await network.connect();',
      'const c = await ethers.deployContract(process.env.NAME, [BigInt(process.env.START)]);',
      'await c.waitForDeployment();',
      'console.log(`Deployed to: ${await c.getAddress()}`);',
      '',
    ].join('\n'),
  );
  const rpcUrl = doorUrl;
  writeFileSync(
    path.join(project, 'hardhat.config.js'),
    `import hardhatVerify from "@nomicfoundation/hardhat-verify";
import hardhatEthers from "@nomicfoundation/hardhat-ethers";
export default {
  plugins: [hardhatVerify, hardhatEthers],
  solidity: {
    compilers: [
      {
        version: "0.8.20",
        path: ${JSON.stringify(require.resolve('solc/soljson.js'))},
        settings: { evmVersion: "paris", optimizer: { enabled: true, runs: 200 } },
      },
    ],
    overrides: {
      "contracts/Counter24.sol": {
        version: "0.8.24",
        path: ${JSON.stringify(require.resolve('solc-0.8.24/soljson.js'))},
        settings: { evmVersion: "paris", optimizer: { enabled: true, runs: 200 } },
      },
    },
  },
  networks: {
    qbft: { type: "http", url: ${JSON.stringify(rpcUrl)}, chainId: 17991, accounts: [${JSON.stringify(ANVIL_KEYS[2])}] },
  },
  chainDescriptors: {
    17991: {
      name: "QBFT testnet",
      blockExplorers: {
        etherscan: {
          name: "QBFT explorer",
          url: ${JSON.stringify(stack.url)},
          apiUrl: ${JSON.stringify(`${stack.url}/api/explorer/etherscan/api`)},
        },
      },
    },
  },
  verify: { etherscan: { apiKey: "unused" }, blockscout: { enabled: false }, sourcify: { enabled: false } },
};
`,
  );
  const build = await hardhat(['build']);
  expect(build.out).toMatch(/Compiled 1 Solidity file with solc 0\.8\.20/);
  expect(build.out).toMatch(/Compiled 1 Solidity file with solc 0\.8\.24/);
}, 240_000);

afterAll(async () => {
  await stack?.stop();
  if (project) rmSync(project, { recursive: true, force: true });
});

describeHardhat('hardhat verify (Hardhat 3, hardhat-verify) against the Etherscan-compatible API', () => {
  it('verifies a contract hardhat deployed, then reports it already verified; the explorer decodes it', async () => {
    const address = await deploy(5n);
    const first = await verify(address, 5n);
    // hardhat-verify first submits a minimal input (which states evmVersion shanghai here, so it
    // fails on the code's length) and then the full input of the build, which passes.
    expect(first.out).toMatch(/Contract verified successfully on QBFT explorer/);
    expect(first.code).toBe(0);
    expect(
      await stack.app.dataSource.query(`SELECT status, reason FROM verification_jobs ORDER BY created_at`),
    ).toEqual([
      { status: 'fail', reason: 'the compiled runtime code is 296 bytes long, the code at the address 305 bytes' },
      { status: 'pass', reason: null },
    ]);
    expect(first.code).toBe(0);
    const again = await verify(address, 5n);
    // hardhat-verify asks getsourcecode first and stops on a non-empty SourceCode.
    expect(again.out).toMatch(/has already been verified on QBFT explorer/);

    const body = await (await fetch(`${stack.url}/api/explorer/address/${address}/contract?network=testnet`)).json();
    expect(body.contract).toMatchObject({ name: 'Counter', match: 'full', compilerVersion: 'v0.8.20+commit.a1b79de6' });
    expect(body.contract.sources['project/contracts/Counter.sol']).toBe(COUNTER);

    const wallet = new Wallet(ANVIL_KEYS[2]!, providerOf(stack, 'testnet'));
    const tx = await wallet.sendTransaction({ to: address, data: '0xd09de08a' }); // increment()
    await tx.wait();
    const seen = await (await fetch(`${stack.url}/api/explorer/tx/${tx.hash}?network=testnet`)).json();
    expect(seen.transaction.method).toMatchObject({ name: 'increment', signature: 'increment()' });
    expect(seen.transaction.logs[0].decoded).toMatchObject({ event: 'Incremented', args: { number: '6' } });
  }, 300_000);

  it('verifies a contract hardhat built with a second compiler, solc 0.8.24, from the local soljson', async () => {
    const address = await deploy(3n, 'Counter24');
    const res = await verify(address, 3n);
    expect(res.out).toMatch(/Contract verified successfully on QBFT explorer/);
    expect(res.code).toBe(0);
    const body = await (await fetch(`${stack.url}/api/explorer/address/${address}/contract?network=testnet`)).json();
    expect(body.contract).toMatchObject({
      name: 'Counter24',
      match: 'full',
      compilerVersion: 'v0.8.24+commit.e11b9ed9',
    });
    expect(body.contract.sources['project/contracts/Counter24.sol']).toBe(COUNTER24);
    // 0.8.24 got workers of its own; no compile asked for 0.8.28 or 0.8.19: they never started one.
    expect(stack.app.services.compiler.releaseStats('0.8.24')!.compilesDispatched).toBeGreaterThan(0);
    expect(stack.app.services.compiler.releaseStats('0.8.28')).toBeNull();
    expect(stack.app.services.compiler.releaseStats('0.8.19')).toBeNull();
  }, 300_000);

  it('a wrong source is refused (hardhat-verify compares the code with its build before submitting)', async () => {
    const address = await deploy(8n);
    writeFileSync(path.join(project, 'contracts/Counter.sol'), COUNTER.replace('number++;', 'number += 2;'));
    try {
      expect((await hardhat(['build'])).out).toMatch(/Compiled 1 Solidity file/);
      const res = await verify(address, 8n);
      expect(res.code).not.toBe(0);
      expect(res.out).toMatch(/bytecode does not match any of your local contracts/);
    } finally {
      // No build here: `hardhat run` builds what changed before it deploys, so the next deploy does.
      writeFileSync(path.join(project, 'contracts/Counter.sol'), COUNTER);
    }
  }, 300_000);
});
