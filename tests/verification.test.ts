/* eslint-disable @typescript-eslint/no-explicit-any -- Etherscan-shaped answers are asserted field by field */
import { gzipSync } from 'node:zlib';
import { AbiCoder, Contract, ContractFactory, Interface, Wallet } from 'ethers';
import { ANVIL_KEYS, fund, providerOf } from './kit/chain';
import { leastLoopHoldCpuMs } from './kit/cpu-time';
import { client } from './kit/http';
import { login } from './kit/login';
import { deployRegistered } from './kit/flows';
import { compileCached } from './kit/solc-cache';
import { TOKEN_SOURCE } from './kit/solidity';
import { startStack, type Stack } from './kit/stack';

// Verification by recompiling and the Etherscan-compatible API (docs/api.md, "Verification" and
// "Etherscan-compatible API"), with contracts the test deploys straight to anvil, as hardhat and
// foundry do through the JSON-RPC door.

// solc-js, the package the service's workers load (tests/kit/solc-cache.ts): the test compiles what
// it deploys with it, or with another installed release (an npm alias such as `solc-0.8.24`).

const VERSION = 'v0.8.20+commit.a1b79de6';
/** The installed set (docs/api.md, "Verification"): the portal's release first, then the others. */
const INSTALLED = [VERSION, 'v0.8.19+commit.7dd6d404', 'v0.8.24+commit.e11b9ed9', 'v0.8.28+commit.7893614a'];
const VAULT = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import {Base} from "./Base.sol";

contract Vault is Base {
    uint256 public immutable cap;
    event Deposited(address indexed from, uint256 amount, string note);

    constructor(uint256 cap_, string memory label_) Base(label_) {
        cap = cap_;
    }

    function deposit(uint256 amount, string calldata note) external {
        require(amount <= cap, "over cap");
        emit Deposited(msg.sender, amount, note);
    }
}
`;
const BASE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

contract Base {
    string public label;
    constructor(string memory label_) { label = label_; }
}
`;
const SINGLE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

contract Single {
    uint256 public value = 7;
    function set(uint256 v) external { value = v; }
}
`;

const SETTINGS = { optimizer: { enabled: true, runs: 200 }, evmVersion: 'paris' };
const OUTPUTS = { '*': { '*': ['abi', 'evm.bytecode.object'] } };

function standardJson(sources: Record<string, string>, settings: object = SETTINGS) {
  return {
    language: 'Solidity',
    sources: Object.fromEntries(Object.entries(sources).map(([k, v]) => [k, { content: v }])),
    settings,
  };
}

function compile(
  sources: Record<string, string>,
  file: string,
  name: string,
  settings: object = SETTINGS,
  solcPackage = 'solc',
) {
  const input = { ...standardJson(sources, settings), settings: { ...settings, outputSelection: OUTPUTS } };
  const out = JSON.parse(compileCached(JSON.stringify(input), solcPackage));
  const errors = (out.errors ?? []).filter((e: any) => e.severity === 'error');
  if (errors.length > 0) throw new Error(errors[0].formattedMessage);
  const c = out.contracts[file][name];
  return { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` };
}

let stack: Stack;
let wallet: Wallet;

async function deploy(
  sources: Record<string, string>,
  file: string,
  name: string,
  args: unknown[] = [],
  settings?: object,
  solcPackage?: string,
) {
  const { abi, bytecode } = compile(sources, file, name, settings, solcPackage);
  const factory = new ContractFactory(abi, bytecode, wallet);
  const contract = await factory.deploy(...args);
  const receipt = await contract.deploymentTransaction()!.wait();
  return { address: await contract.getAddress(), abi, txHash: receipt!.hash, contract };
}

/** One Etherscan-API exchange; every answer must be HTTP 200 JSON. */
async function etherscan(
  params: Record<string, string>,
  opts: { method?: 'GET' | 'POST'; base?: string; query?: Record<string, string> } = {},
): Promise<{ status: number; body: any }> {
  const base = opts.base ?? `${stack.url}/api/explorer/etherscan/testnet/api`;
  let res: Response;
  if (opts.method === 'POST') {
    const q = opts.query ? `?${new URLSearchParams(opts.query)}` : '';
    res = await fetch(`${base}${q}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(params).toString(),
    });
  } else {
    res = await fetch(`${base}?${new URLSearchParams({ ...opts.query, ...params })}`);
  }
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  return { status: res.status, body: await res.json() };
}

/** Submits and polls checkverifystatus until the job leaves the queue; returns every status seen. */
async function verify(params: Record<string, string>): Promise<{ submit: any; statuses: any[] }> {
  const submit = await etherscan({ module: 'contract', action: 'verifysourcecode', ...params }, { method: 'POST' });
  expect(submit.status).toBe(200);
  const statuses: any[] = [];
  if (submit.body.status !== '1') return { submit: submit.body, statuses };
  for (let i = 0; i < 300; i++) {
    const s = await etherscan({ module: 'contract', action: 'checkverifystatus', guid: submit.body.result });
    expect(s.status).toBe(200);
    statuses.push(s.body);
    if (s.body.result !== 'Pending in queue') break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return { submit: submit.body, statuses };
}

const last = (statuses: any[]) => statuses[statuses.length - 1];

beforeAll(async () => {
  stack = await startStack();
  wallet = new Wallet(ANVIL_KEYS[1]!, providerOf(stack, 'testnet'));
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

describe('GET /api/explorer/verification/config', () => {
  it('lists the installed compilers and the EVM versions', async () => {
    const res = await fetch(`${stack.url}/api/explorer/verification/config`);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.compilerVersions).toEqual(INSTALLED);
    // Any installed release's: homestead (all of them) to prague (0.8.28).
    expect(body.evmVersions).toEqual(expect.arrayContaining(['homestead', 'paris', 'shanghai', 'cancun', 'prague']));
  });
});

describe('GET /api/explorer/address/{address}/contract', () => {
  it('an unverified address: {found: false}; a malformed one: 400 VALIDATION_FAILED', async () => {
    const none = await fetch(
      `${stack.url}/api/explorer/address/${Wallet.createRandom().address}/contract?network=testnet`,
    );
    expect(none.status).toBe(200);
    expect(await none.json()).toEqual({ found: false });
    const bad = await fetch(`${stack.url}/api/explorer/address/0x1234/contract?network=testnet`);
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.code).toBe('VALIDATION_FAILED');
    const net = await fetch(`${stack.url}/api/explorer/address/${wallet.address}/contract?network=devnet`);
    expect(net.status).toBe(400);
  });
});

describe('verification through the Etherscan-compatible API', () => {
  let vault: Awaited<ReturnType<typeof deploy>>;
  const encodedArgs = AbiCoder.defaultAbiCoder().encode(['uint256', 'string'], [1000n, 'savings']).slice(2);

  beforeAll(async () => {
    vault = await deploy({ 'src/Vault.sol': VAULT, 'src/Base.sol': BASE }, 'src/Vault.sol', 'Vault', [
      1000n,
      'savings',
    ]);
  }, 60_000);

  it('verifies a multi-file standard-JSON input with constructor arguments and an immutable: full match', async () => {
    // Before: not verified, in Etherscan's words.
    const before = await etherscan({ module: 'contract', action: 'getabi', address: vault.address });
    expect(before.body).toEqual({ status: '0', message: 'NOTOK', result: 'Contract source code not verified' });
    const src = await etherscan({ module: 'contract', action: 'getsourcecode', address: vault.address });
    expect(src.body.status).toBe('1');
    // Etherscan's answer for an unverified address, field for field.
    expect(src.body.result).toEqual([
      {
        SourceCode: '',
        ABI: 'Contract source code not verified',
        ContractName: '',
        CompilerVersion: '',
        OptimizationUsed: '',
        Runs: '',
        ConstructorArguments: '',
        EVMVersion: 'Default',
        Library: '',
        LicenseType: 'Unknown',
        Proxy: '0',
        Implementation: '',
        SwarmSource: '',
      },
    ]);

    const { submit, statuses } = await verify({
      contractaddress: vault.address,
      sourceCode: JSON.stringify(standardJson({ 'src/Vault.sol': VAULT, 'src/Base.sol': BASE })),
      codeformat: 'solidity-standard-json-input',
      contractname: 'src/Vault.sol:Vault',
      compilerversion: VERSION,
      constructorArguements: encodedArgs,
      apikey: 'ignored',
    });
    expect(submit.status).toBe('1');
    expect(submit.result).toMatch(/^[0-9a-z]{50}$/);
    // The submission answered once its verification had ended (within 10 s): the first check passes.
    expect(statuses).toEqual([{ status: '1', message: 'OK', result: 'Pass - Verified' }]);

    const res = await fetch(
      `${stack.url}/api/explorer/address/${vault.address.toLowerCase()}/contract?network=testnet`,
    );
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.found).toBe(true);
    expect(body.contract).toMatchObject({
      address: vault.address,
      network: 'testnet',
      name: 'Vault',
      match: 'full',
      compilerVersion: VERSION,
      evmVersion: 'paris',
      optimizer: { enabled: true, runs: 200 },
      sources: { 'src/Vault.sol': VAULT, 'src/Base.sol': BASE },
      constructorArgs: encodedArgs,
      creationTxHash: vault.txHash,
      creator: wallet.address,
    });
    expect(body.contract.abi).toEqual(vault.abi);

    const gql = await fetch(`${stack.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query: `query($a: String!) { verificationConfig { compilerVersions }
          addressContract(address: $a, network: testnet) { found contract { name match constructorArgs creator } } }`,
        variables: { a: vault.address },
      }),
    });
    expect((await gql.json()).data).toEqual({
      verificationConfig: { compilerVersions: INSTALLED },
      addressContract: {
        found: true,
        contract: { name: 'Vault', match: 'full', constructorArgs: encodedArgs, creator: wallet.address },
      },
    });
    const abi = await etherscan({ module: 'contract', action: 'getabi', address: vault.address });
    expect(abi.body.status).toBe('1');
    expect(JSON.parse(abi.body.result)).toEqual(vault.abi);
    const code = await etherscan({ module: 'contract', action: 'getsourcecode', address: vault.address });
    expect(code.body.result[0]).toMatchObject({
      ContractName: 'Vault',
      CompilerVersion: VERSION,
      OptimizationUsed: '1',
      Runs: '200',
      ConstructorArguments: encodedArgs,
      EVMVersion: 'paris',
      Proxy: '0',
    });
    // A standard-JSON verification's SourceCode is that JSON in double braces, as Etherscan does.
    expect(code.body.result[0].SourceCode.startsWith('{{')).toBe(true);
    expect(JSON.parse(code.body.result[0].SourceCode.slice(1, -1)).sources['src/Base.sol'].content).toBe(BASE);
    const creation = await etherscan({
      module: 'contract',
      action: 'getcontractcreation',
      contractaddresses: vault.address,
    });
    expect(creation.body.result).toEqual([
      {
        contractAddress: vault.address.toLowerCase(),
        contractCreator: wallet.address.toLowerCase(),
        txHash: vault.txHash,
      },
    ]);
  }, 120_000);

  it('a second submission for a verified address: status "0", "Contract source code already verified"', async () => {
    const again = await etherscan(
      {
        module: 'contract',
        action: 'verifysourcecode',
        contractaddress: vault.address,
        sourceCode: JSON.stringify(standardJson({ 'src/Vault.sol': VAULT, 'src/Base.sol': BASE })),
        codeformat: 'solidity-standard-json-input',
        contractname: 'src/Vault.sol:Vault',
        compilerversion: VERSION,
      },
      { method: 'POST' },
    );
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ status: '0', message: 'NOTOK', result: 'Contract source code already verified' });
  });

  it('the explorer decodes the verified contract: tx.method and every log', async () => {
    const contract = new Contract(vault.address, vault.abi, wallet);
    const tx = await contract.getFunction('deposit')(42n, 'hello');
    await tx.wait();
    const res = await fetch(`${stack.url}/api/explorer/tx/${tx.hash}?network=testnet`);
    const body = await res.json();
    expect(body.transaction.method).toEqual({
      name: 'deposit',
      signature: 'deposit(uint256,string)',
      args: [
        { name: 'amount', type: 'uint256', value: '42' },
        { name: 'note', type: 'string', value: 'hello' },
      ],
    });
    expect(body.transaction.logs[0].decoded).toEqual({
      name: 'Deposited',
      event: 'Deposited',
      signature: 'Deposited(address,uint256,string)',
      args: { from: wallet.address, amount: '42', note: 'hello' },
    });
    const info = await (await fetch(`${stack.url}/api/explorer/address/${vault.address}?network=testnet`)).json();
    expect(info.info.contract).toMatchObject({ name: 'Vault', verified: true });
  }, 60_000);
});

describe('verification outcomes', () => {
  it('single-file input (optimizer off): full match, then getsourcecode gives the file itself', async () => {
    const settings = { optimizer: { enabled: false, runs: 200 }, evmVersion: 'paris' };
    const single = await deploy({ 'Single.sol': SINGLE }, 'Single.sol', 'Single', [], settings);
    const { statuses } = await verify({
      contractaddress: single.address,
      sourceCode: SINGLE,
      codeformat: 'solidity-single-file',
      contractname: 'Single',
      compilerversion: `${VERSION}.Linux.gcc`,
      optimizationUsed: '0',
      runs: '200',
      evmversion: 'paris',
    });
    expect(last(statuses)).toEqual({ status: '1', message: 'OK', result: 'Pass - Verified' });
    const code = await etherscan({ module: 'contract', action: 'getsourcecode', address: single.address });
    expect(code.body.result[0]).toMatchObject({ SourceCode: SINGLE, ContractName: 'Single', OptimizationUsed: '0' });
  }, 120_000);

  it('a difference in the metadata alone (a comment): partial match, which a full match later replaces', async () => {
    const commented = SINGLE.replace('contract Single {', '// deployed with this comment\ncontract Single {');
    const deployed = await deploy({ 'Single.sol': commented }, 'Single.sol', 'Single');
    const { statuses } = await verify({
      contractaddress: deployed.address,
      sourceCode: JSON.stringify(standardJson({ 'Single.sol': SINGLE })),
      codeformat: 'solidity-standard-json-input',
      contractname: 'Single.sol:Single',
      compilerversion: VERSION,
    });
    expect(last(statuses)).toEqual({ status: '1', message: 'OK', result: 'Pass - Verified' });
    const body = await (
      await fetch(`${stack.url}/api/explorer/address/${deployed.address}/contract?network=testnet`)
    ).json();
    expect(body.contract.match).toBe('partial');

    // The same partial source again: already verified; the deployed source: full, replacing it.
    const samePartial = await verify({
      contractaddress: deployed.address,
      sourceCode: JSON.stringify(standardJson({ 'Single.sol': SINGLE })),
      codeformat: 'solidity-standard-json-input',
      contractname: 'Single.sol:Single',
      compilerversion: VERSION,
    });
    expect(last(samePartial.statuses)).toEqual({ status: '1', message: 'OK', result: 'Already Verified' });
    const exact = await verify({
      contractaddress: deployed.address,
      sourceCode: JSON.stringify(standardJson({ 'Single.sol': commented })),
      codeformat: 'solidity-standard-json-input',
      contractname: 'Single.sol:Single',
      compilerversion: VERSION,
    });
    expect(last(exact.statuses)).toEqual({ status: '1', message: 'OK', result: 'Pass - Verified' });
    const after = await (
      await fetch(`${stack.url}/api/explorer/address/${deployed.address}/contract?network=testnet`)
    ).json();
    expect(after.contract.match).toBe('full');
    expect(after.contract.sources['Single.sol']).toBe(commented);
    const final = await etherscan(
      {
        module: 'contract',
        action: 'verifysourcecode',
        contractaddress: deployed.address,
        sourceCode: JSON.stringify(standardJson({ 'Single.sol': commented })),
        codeformat: 'solidity-standard-json-input',
        contractname: 'Single.sol:Single',
        compilerversion: VERSION,
      },
      { method: 'POST' },
    );
    expect(final.body.result).toBe('Contract source code already verified');
  }, 120_000);

  it('a wrong source fails with the first differing reason, and never blocks a later right one', async () => {
    const deployed = await deploy({ 'Single.sol': SINGLE }, 'Single.sol', 'Single');
    const wrong = SINGLE.replace('value = 7', 'value = 8');
    const failed = await verify({
      contractaddress: deployed.address,
      sourceCode: JSON.stringify(standardJson({ 'Single.sol': wrong })),
      codeformat: 'solidity-standard-json-input',
      contractname: 'Single.sol:Single',
      compilerversion: VERSION,
    });
    expect(last(failed.statuses).status).toBe('0');
    expect(last(failed.statuses).result).toMatch(
      /^Fail - Unable to verify\. the (creation|runtime) code differs from the compiled code at byte \d+$/,
    );
    const right = await verify({
      contractaddress: deployed.address,
      sourceCode: JSON.stringify(standardJson({ 'Single.sol': SINGLE })),
      codeformat: 'solidity-standard-json-input',
      contractname: 'Single.sol:Single',
      compilerversion: VERSION,
    });
    expect(last(right.statuses).result).toBe('Pass - Verified');
  }, 120_000);

  it('wrong constructor arguments fail with that reason', async () => {
    const deployed = await deploy({ 'src/Vault.sol': VAULT, 'src/Base.sol': BASE }, 'src/Vault.sol', 'Vault', [
      5n,
      'x',
    ]);
    const { statuses } = await verify({
      contractaddress: deployed.address,
      sourceCode: JSON.stringify(standardJson({ 'src/Vault.sol': VAULT, 'src/Base.sol': BASE })),
      codeformat: 'solidity-standard-json-input',
      contractname: 'src/Vault.sol:Vault',
      compilerversion: VERSION,
      constructorArguements: AbiCoder.defaultAbiCoder().encode(['uint256', 'string'], [6n, 'x']).slice(2),
    });
    expect(last(statuses)).toEqual({
      status: '0',
      message: 'NOTOK',
      result: 'Fail - Unable to verify. the constructor arguments differ from those of the creation transaction',
    });
  }, 120_000);

  it('an unknown compiler version fails with that reason', async () => {
    const deployed = await deploy({ 'Single.sol': SINGLE }, 'Single.sol', 'Single');
    const { statuses } = await verify({
      contractaddress: deployed.address,
      sourceCode: SINGLE,
      codeformat: 'solidity-single-file',
      contractname: 'Single',
      compilerversion: 'v0.8.99+commit.deadbeef',
    });
    expect(last(statuses).status).toBe('0');
    expect(last(statuses).result).toBe(
      `Fail - Unable to verify. compiler version v0.8.99+commit.deadbeef is not available (available: ${INSTALLED.join(', ')})`,
    );
    // An installed release with an EVM version it does not know (cancun came with 0.8.24).
    const cancun = await verify({
      contractaddress: deployed.address,
      sourceCode: SINGLE,
      codeformat: 'solidity-single-file',
      contractname: 'Single',
      compilerversion: VERSION,
      evmversion: 'cancun',
    });
    expect(last(cancun.statuses).result).toBe(
      `Fail - Unable to verify. evmVersion cancun is not supported by ${VERSION} (supported: homestead to shanghai)`,
    );
  }, 60_000);

  it('an address without code: "Unable to locate ContractCode at <address>"', async () => {
    const empty = Wallet.createRandom().address;
    const res = await etherscan(
      {
        module: 'contract',
        action: 'verifysourcecode',
        contractaddress: empty,
        sourceCode: SINGLE,
        codeformat: 'solidity-single-file',
        contractname: 'Single',
        compilerversion: VERSION,
      },
      { method: 'POST' },
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: '0', message: 'NOTOK', result: `Unable to locate ContractCode at ${empty}` });
  });

  it('a submission near the 1 MiB body limit holds the event loop less than 100 ms (solc runs in its worker)', async () => {
    const deployed = await deploy({ 'Single.sol': SINGLE }, 'Single.sol', 'Single');
    // 40 files of 20,000 characters of comments beside the contract: about 800 KB of sources.
    const filler = Object.fromEntries(
      Array.from({ length: 40 }, (_, i) => [`lib/F${i}.sol`, `// ${'a'.repeat(19_990)}\n`]),
    );
    const sourceCode = JSON.stringify(standardJson({ 'Single.sol': SINGLE, ...filler }));
    expect(sourceCode.length).toBeGreaterThan(800_000);
    const { result, maxHoldMs } = await leastLoopHoldCpuMs(
      () =>
        verify({
          contractaddress: deployed.address,
          sourceCode,
          codeformat: 'solidity-standard-json-input',
          contractname: 'Single.sol:Single',
          compilerversion: VERSION,
        }),
      100,
      { tries: 1 },
    );
    expect(last(result.statuses)).toEqual({ status: '1', message: 'OK', result: 'Pass - Verified' });
    expect(maxHoldMs).toBeLessThan(100);
  }, 120_000);

  it('a job its instance never finished fails after 10 minutes instead of staying pending', async () => {
    await stack.app.dataSource.query(
      `INSERT INTO verification_jobs (guid, network, address, status, created_at)
       VALUES ('abandoned', 'testnet', '0x0000000000000000000000000000000000000001', 'pending', now() - interval '11 minutes')`,
    );
    const res = await etherscan({ module: 'contract', action: 'checkverifystatus', guid: 'abandoned' });
    expect(res.body).toEqual({
      status: '0',
      message: 'NOTOK',
      result: 'Fail - Unable to verify. the verification was interrupted; submit it again',
    });
  });

  it('an unknown guid: "Unknown UID"', async () => {
    const res = await etherscan({ module: 'contract', action: 'checkverifystatus', guid: 'x'.repeat(50) });
    expect(res).toEqual({ status: 200, body: { status: '0', message: 'NOTOK', result: 'Unknown UID' } });
  });
});

describe('contracts compiled with the other installed releases', () => {
  // Compiled for paris (the dev chains' hardfork: 0.8.24 would emit PUSH0 for its default shanghai).
  const PINNED = (release: string) => SINGLE.replace('pragma solidity ^0.8.20;', `pragma solidity ${release};`);

  it('0.8.24 (standard JSON, a platform suffix) and 0.8.19 (one file, no v): verified, shown over REST and GraphQL', async () => {
    const s24 = PINNED('0.8.24');
    const c24 = await deploy({ 'src/Single.sol': s24 }, 'src/Single.sol', 'Single', [], SETTINGS, 'solc-0.8.24');
    const v24 = await verify({
      contractaddress: c24.address,
      sourceCode: JSON.stringify(standardJson({ 'src/Single.sol': s24 })),
      codeformat: 'solidity-standard-json-input',
      contractname: 'src/Single.sol:Single',
      compilerversion: 'v0.8.24+commit.e11b9ed9.Emscripten.clang',
    });
    expect(last(v24.statuses)).toEqual({ status: '1', message: 'OK', result: 'Pass - Verified' });

    const s19 = PINNED('0.8.19');
    const plain = { optimizer: { enabled: false, runs: 200 }, evmVersion: 'paris' };
    const c19 = await deploy({ 'Single.sol': s19 }, 'Single.sol', 'Single', [], plain, 'solc-0.8.19');
    // Named 0.8.20, the same source (its pragma opened so that it compiles) gives the same code but
    // for the metadata, which names the compiler: a partial match, which the right release replaces.
    const wrong = await verify({
      contractaddress: c19.address,
      sourceCode: s19.replace('pragma solidity 0.8.19;', 'pragma solidity ^0.8.19;'),
      codeformat: 'solidity-single-file',
      contractname: 'Single',
      compilerversion: VERSION,
      optimizationUsed: '0',
      evmversion: 'paris',
    });
    expect(last(wrong.statuses)).toEqual({ status: '1', message: 'OK', result: 'Pass - Verified' });
    const partial = await (
      await fetch(`${stack.url}/api/explorer/address/${c19.address}/contract?network=testnet`)
    ).json();
    expect(partial.contract).toMatchObject({ match: 'partial', compilerVersion: VERSION });

    const v19 = await verify({
      contractaddress: c19.address,
      sourceCode: s19,
      codeformat: 'solidity-single-file',
      contractname: 'Single',
      compilerversion: '0.8.19+commit.7dd6d404',
      optimizationUsed: '0',
      runs: '200',
      evmversion: 'paris',
    });
    expect(last(v19.statuses)).toEqual({ status: '1', message: 'OK', result: 'Pass - Verified' });

    const rest = await (
      await fetch(`${stack.url}/api/explorer/address/${c24.address}/contract?network=testnet`)
    ).json();
    expect(rest.contract).toMatchObject({
      name: 'Single',
      match: 'full',
      compilerVersion: 'v0.8.24+commit.e11b9ed9',
      evmVersion: 'paris',
      optimizer: { enabled: true, runs: 200 },
      sources: { 'src/Single.sol': s24 },
    });
    const gql = await fetch(`${stack.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query: `query($a: String!) { addressContract(address: $a, network: testnet) {
          contract { match compilerVersion evmVersion optimizer { enabled } } } }`,
        variables: { a: c19.address },
      }),
    });
    expect((await gql.json()).data.addressContract.contract).toEqual({
      match: 'full',
      compilerVersion: 'v0.8.19+commit.7dd6d404',
      evmVersion: 'paris',
      optimizer: { enabled: false },
    });
    const code = await etherscan({ module: 'contract', action: 'getsourcecode', address: c19.address });
    expect(code.body.result[0]).toMatchObject({ SourceCode: s19, CompilerVersion: 'v0.8.19+commit.7dd6d404' });

    // Each release used has its own workers; a release nobody used never started a thread.
    const compiler = stack.app.services.compiler;
    expect(compiler.releaseStats('0.8.24')).toMatchObject({ compilesDispatched: 1 });
    expect(compiler.releaseStats('0.8.19')).toMatchObject({ compilesDispatched: 1 });
    expect(compiler.releaseStats('0.8.28')).toBeNull();
  }, 180_000);
});

describe('portal contracts', () => {
  it('are verified from their own record: sources, settings, ABI; a submission is "already verified"', async () => {
    const api = client(stack.url);
    const dev = await login(api, stack.ca);
    await fund(stack, 'testnet', dev.walletAddress, '10', 0);
    const token = await deployRegistered(api, dev, TOKEN_SOURCE, ['1000']);
    const res = await fetch(`${stack.url}/api/explorer/address/${token.address}/contract?network=testnet`);
    const body = await res.json();
    expect(body.found).toBe(true);
    expect(body.contract).toMatchObject({
      address: token.address,
      match: 'full',
      compilerVersion: VERSION,
      evmVersion: 'paris',
      optimizer: { enabled: true, runs: 200 },
    });
    expect(Object.values(body.contract.sources)).toEqual([TOKEN_SOURCE]);
    expect(body.contract.abi).toEqual(token.abi);
    expect(body.contract.constructorArgs).toBe(AbiCoder.defaultAbiCoder().encode(['uint256'], [1000n]).slice(2));
    const abi = await etherscan({ module: 'contract', action: 'getabi', address: token.address });
    expect(JSON.parse(abi.body.result)).toEqual(token.abi);
    const again = await etherscan(
      {
        module: 'contract',
        action: 'verifysourcecode',
        contractaddress: token.address,
        sourceCode: TOKEN_SOURCE,
        codeformat: 'solidity-single-file',
        contractname: 'Token',
        compilerversion: VERSION,
      },
      { method: 'POST' },
    );
    expect(again.body).toEqual({ status: '0', message: 'NOTOK', result: 'Contract source code already verified' });
  }, 120_000);
});

describe('the Etherscan-compatible base URLs', () => {
  it('the shared base URL needs chainid (17991 | 1991); forge puts chainid in the URL and the rest in the form', async () => {
    const missing = await etherscan(
      { module: 'proxy', action: 'eth_blockNumber' },
      { base: `${stack.url}/api/explorer/etherscan/api` },
    );
    expect(missing.status).toBe(200);
    expect(missing.body.status).toBe('0');
    expect(missing.body.result).toMatch(/chainid/);
    const viaForm = await etherscan(
      { module: 'contract', action: 'checkverifystatus', guid: 'nope' },
      { method: 'POST', base: `${stack.url}/api/explorer/etherscan/api`, query: { chainid: '17991' } },
    );
    expect(viaForm.body).toEqual({ status: '0', message: 'NOTOK', result: 'Unknown UID' });
    const proxy = await etherscan(
      { module: 'proxy', action: 'eth_blockNumber', chainid: '17991' },
      { base: `${stack.url}/api/explorer/etherscan/api` },
    );
    expect(proxy.body).toMatchObject({ jsonrpc: '2.0', id: 1 });
    expect(proxy.body.result).toMatch(/^0x[0-9a-f]+$/);
  });

  it('unknown modules and bad networks answer status "0" with HTTP 200', async () => {
    const bad = await etherscan({ module: 'nope', action: 'x' });
    expect(bad).toEqual({
      status: 200,
      body: { status: '0', message: 'NOTOK', result: 'Error! Missing Or invalid Module name / Action name' },
    });
    const net = await etherscan(
      { module: 'proxy', action: 'eth_blockNumber' },
      { base: `${stack.url}/api/explorer/etherscan/devnet/api` },
    );
    expect(net.status).toBe(200);
    expect(net.body.status).toBe('0');
  });

  it('every refusal is HTTP 200 JSON with status "0": bad parameters, wrong chainid, compressed, JSON and oversized bodies', async () => {
    const testnet = `${stack.url}/api/explorer/etherscan/testnet/api`;
    const shared = `${stack.url}/api/explorer/etherscan/api`;
    const notOk = (result: unknown) => ({ status: 200, body: { status: '0', message: 'NOTOK', result } });
    const submit = {
      module: 'contract',
      action: 'verifysourcecode',
      contractaddress: wallet.address,
      sourceCode: SINGLE,
      codeformat: 'solidity-single-file',
      contractname: 'Single',
      compilerversion: VERSION,
    };
    expect(await etherscan({ module: 'contract', action: 'getabi', address: '0x1234' })).toEqual(
      notOk('Invalid Address format'),
    );
    expect(await etherscan({ ...submit, contractaddress: 'nope' }, { method: 'POST' })).toEqual(
      notOk('Invalid contractaddress format'),
    );
    expect(await etherscan({ ...submit, codeformat: 'vyper' }, { method: 'POST' })).toEqual(
      notOk('codeformat must be solidity-standard-json-input or solidity-single-file'),
    );
    expect(await etherscan({ ...submit, sourceCode: '' }, { method: 'POST' })).toEqual(notOk('Missing sourceCode'));
    expect(await etherscan({ ...submit, constructorArguements: 'zz' }, { method: 'POST' })).toEqual(
      notOk('constructorArguements must be hex'),
    );
    expect(
      await etherscan({ module: 'account', action: 'txlist', address: wallet.address, page: '2', offset: '10000' }),
    ).toEqual(notOk('Result window is too large, PageNo x Offset size must be less than or equal to 10000'));
    expect(await etherscan({ module: 'logs', action: 'getLogs', fromBlock: '5', toBlock: '4' })).toEqual(
      notOk('fromBlock and toBlock must be block numbers, fromBlock first'),
    );
    expect(await etherscan({ module: 'proxy', action: 'eth_sendRawTransaction', hex: '0x00' })).toEqual(
      notOk('Error! Missing Or invalid Action name'),
    );
    // The proxy module refuses in JSON-RPC's shape, still HTTP 200.
    expect(await etherscan({ module: 'proxy', action: 'eth_getCode', address: '0x12' })).toEqual({
      status: 200,
      body: { jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'address must be 20 bytes of hex' } },
    });
    expect(
      await etherscan({ module: 'proxy', action: 'eth_blockNumber' }, { base: shared, query: { chainid: '1' } }),
    ).toEqual(notOk('Missing or unsupported chainid parameter (17991 testnet, 1991 mainnet)'));
    expect(await etherscan({ module: 'proxy', action: 'eth_blockNumber', chainid: '1991' })).toEqual(
      notOk("chainid 1991 is not the testnet's (17991)"),
    );

    const post = async (body: string | Uint8Array<ArrayBuffer>, headers: Record<string, string>) => {
      const res = await fetch(testnet, { method: 'POST', headers, body });
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      return { status: res.status, body: await res.json() };
    };
    const form = new URLSearchParams({ module: 'proxy', action: 'eth_blockNumber' }).toString();
    expect(
      await post(new Uint8Array(gzipSync(form)), {
        'content-type': 'application/x-www-form-urlencoded',
        'content-encoding': 'gzip',
      }),
    ).toEqual(notOk('the request body must not be compressed'));
    // A JSON body is not read as parameters.
    expect(
      await post(JSON.stringify({ module: 'proxy', action: 'eth_blockNumber' }), {
        'content-type': 'application/json',
      }),
    ).toEqual(notOk('Error! Missing Or invalid Module name / Action name'));
    expect(
      await post(`${form}&sourceCode=${'a'.repeat(1024 * 1024)}`, {
        'content-type': 'application/x-www-form-urlencoded',
      }),
    ).toEqual(notOk('the request body is over 1048576 bytes'));
  });
});

describe('module=account, block, logs and proxy', () => {
  let single: Awaited<ReturnType<typeof deploy>>;
  beforeAll(async () => {
    single = await deploy({ 'Single.sol': SINGLE }, 'Single.sol', 'Single');
  }, 60_000);

  it('balance and balancemulti in wei', async () => {
    const expected = (await providerOf(stack, 'testnet').getBalance(wallet.address)).toString();
    const one = await etherscan({ module: 'account', action: 'balance', address: wallet.address, tag: 'latest' });
    expect(one.body).toEqual({ status: '1', message: 'OK', result: expected });
    const empty = Wallet.createRandom().address;
    const multi = await etherscan({ module: 'account', action: 'balancemulti', address: `${wallet.address},${empty}` });
    expect(multi.body.result).toEqual([
      { account: wallet.address, balance: expected },
      { account: empty, balance: '0' },
    ]);
  });

  it('txlist with Etherscan\'s fields once indexed; an empty list is "No transactions found"', async () => {
    let list: any;
    for (let i = 0; i < 100; i++) {
      list = await etherscan({ module: 'account', action: 'txlist', address: single.address, sort: 'asc' });
      if (list.body.status === '1') break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(list.body.status).toBe('1');
    const item = list.body.result[0];
    expect(item).toMatchObject({
      hash: single.txHash,
      from: wallet.address.toLowerCase(),
      to: '',
      contractAddress: single.address.toLowerCase(),
      isError: '0',
      txreceipt_status: '1',
      methodId: expect.any(String),
    });
    for (const field of [
      'blockNumber',
      'timeStamp',
      'hash',
      'nonce',
      'blockHash',
      'transactionIndex',
      'from',
      'to',
      'value',
      'gas',
      'gasPrice',
      'isError',
      'txreceipt_status',
      'input',
      'contractAddress',
      'cumulativeGasUsed',
      'gasUsed',
      'confirmations',
      'methodId',
      'functionName',
    ]) {
      expect(typeof item[field]).toBe('string');
    }
    const none = await etherscan({ module: 'account', action: 'txlist', address: Wallet.createRandom().address });
    expect(none.body).toEqual({ status: '0', message: 'No transactions found', result: [] });
    const tooMany = await etherscan({
      module: 'account',
      action: 'txlist',
      address: single.address,
      page: '2',
      offset: '10000',
    });
    expect(tooMany.body.status).toBe('0');
  }, 60_000);

  it("txlist pages an address's sends, receipts, self-sends and creation in block order, each once", async () => {
    // Rows of the index for an address no test uses, at transaction indexes no block of the dev chain reaches.
    const me = Wallet.createRandom().address.toLowerCase();
    const other = Wallet.createRandom().address.toLowerCase();
    const rows: Array<[number, number, string, string | null, string | null]> = [
      [1, 1001, me, other, null], // sent
      [1, 1002, other, me, null], // received
      [2, 1001, me, me, null], // to itself: listed once
      [2, 1003, other, null, me], // created it
      [3, 1001, me, other, null], // sent
      [3, 1002, other, other, null], // not its own
    ];
    const hash = (b: number, i: number) => `0x${String(b).padStart(4, '0')}${String(i).padStart(60, '0')}`;
    for (const [b, i, from, to, created] of rows) {
      await stack.app.dataSource.query(
        `INSERT INTO explorer_transactions (network, hash, block_number, transaction_index, timestamp, from_address,
           to_address, contract_address, value, nonce, gas_limit, gas_price, gas_used, status, method_id, input)
         VALUES ('testnet', $1, $2, $3, 0, $4, $5, $6, 0, 0, 21000, 0, 21000, 1, NULL, '0x')`,
        [hash(b, i), b, i, from, to, created],
      );
    }
    const list = async (q: Record<string, string>) => {
      const res = await etherscan({ module: 'account', action: 'txlist', address: me, ...q });
      return (res.body.result as Array<{ hash: string }>).map((r) => r.hash);
    };
    const mine = [hash(1, 1001), hash(1, 1002), hash(2, 1001), hash(2, 1003), hash(3, 1001)];
    expect(await list({ sort: 'asc' })).toEqual(mine);
    expect(await list({ sort: 'desc' })).toEqual([...mine].reverse());
    expect(await list({ sort: 'asc', page: '2', offset: '2' })).toEqual(mine.slice(2, 4));
    expect(await list({ sort: 'desc', page: '3', offset: '2' })).toEqual([hash(1, 1001)]);
    expect(await list({ sort: 'asc', startblock: '2', endblock: '2' })).toEqual(mine.slice(2, 4));
    expect(await list({ sort: 'asc', page: '4', offset: '2' })).toEqual([]);
  });

  it('getblocknobytime, getLogs and the proxy module', async () => {
    const provider = providerOf(stack, 'testnet');
    const block = await provider.getBlock('latest');
    const byTime = await etherscan({
      module: 'block',
      action: 'getblocknobytime',
      timestamp: String(block!.timestamp),
      closest: 'before',
    });
    expect(byTime.body.status).toBe('1');
    expect(Number(byTime.body.result)).toBeLessThanOrEqual(block!.number);

    const tx = await new Contract(single.address, single.abi, wallet).getFunction('set')(9n);
    const receipt = await tx.wait();
    const code = await etherscan({ module: 'proxy', action: 'eth_getCode', address: single.address, tag: 'latest' });
    expect(code.body).toEqual({ jsonrpc: '2.0', id: 1, result: await provider.getCode(single.address) });
    const got = await etherscan({ module: 'proxy', action: 'eth_getTransactionReceipt', txhash: receipt!.hash });
    expect(got.body.result.transactionHash).toBe(receipt!.hash);
    const call = await etherscan({
      module: 'proxy',
      action: 'eth_call',
      to: single.address,
      data: new Interface(single.abi).encodeFunctionData('value'),
      tag: 'latest',
    });
    expect(BigInt(call.body.result)).toBe(9n);
    const logs = await etherscan({
      module: 'logs',
      action: 'getLogs',
      address: single.address,
      fromBlock: '0',
      toBlock: 'latest',
    });
    expect(logs.body).toEqual({ status: '0', message: 'No records found', result: [] });
  }, 60_000);
});

describe('over the rate limit', () => {
  let limited: Stack;
  beforeAll(async () => {
    limited = await startStack({ PUBLIC_RATE_LIMIT: '5' });
  }, 120_000);
  afterAll(() => limited?.stop());

  it('429 with Retry-After, in Etherscan\'s shape: status "0" and "rate limit" in result', async () => {
    const answers = await Promise.all(
      Array.from({ length: 40 }, () =>
        fetch(`${limited.url}/api/explorer/etherscan/testnet/api?module=proxy&action=eth_blockNumber`),
      ),
    );
    const refused = answers.filter((r) => r.status === 429);
    // 5 a second: most of 40 requests sent at once are refused (how many depends on the machine's pace).
    expect(refused.length).toBeGreaterThanOrEqual(1);
    expect(refused[0]!.headers.get('retry-after')).toMatch(/^\d+$/);
    const body = await refused[0]!.json();
    expect(body).toEqual({ status: '0', message: 'NOTOK', result: expect.stringMatching(/rate limit/i) });
    expect(answers.filter((r) => r.status !== 429).every((r) => r.status === 200)).toBe(true);
  });
});
