/* eslint-disable @typescript-eslint/no-explicit-any -- Etherscan-shaped answers are asserted field by field */
import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
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
// tests/kit/solc-cli.cjs (no svm download), deploys with `forge create` through the service's JSON-RPC door and verifies with
// `--verifier etherscan` and `--verifier blockscout`, each with `--verifier-url`.

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
/** The service's JSON-RPC door with a write key: how teams deploy with their tools. */
let doorUrl: string;

async function forge(args: string[]): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await run(FORGE, args, {
      cwd: project,
      timeout: 180_000,
      env: { ...process.env, FOUNDRY_DISABLE_NIGHTLY_WARNING: '1', NO_COLOR: '1' },
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

/** forge's standard-JSON input of the last build (out/build-info), as verify-contract submits it. */
function forgeStandardJson(): string {
  const dir = path.join(project, 'out/build-info');
  const newest = readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => ({ f, t: statSync(path.join(dir, f)).mtimeMs }))
    .sort((a, b) => b.t - a.t)[0]!;
  const file = newest.f;
  const info = JSON.parse(readFileSync(path.join(dir, file), 'utf8'));
  const { language, sources, settings } = info.input;
  return JSON.stringify({ language, sources, settings });
}

/**
 * forge verify-contract's wire (crates/verify/src/etherscan): a form POST of these fields, with
 * `chainid` in the URL on Etherscan's v2 base URL, then GETs of checkverifystatus until the
 * result is no longer "Pending in queue".
 */
async function forgeWire(
  address: string,
  start: bigint,
  base: 'shared' | 'network',
): Promise<{ submit: any; status: any }> {
  const url =
    base === 'shared'
      ? `${stack.url}/api/explorer/etherscan/api?chainid=17991`
      : `${stack.url}/api/explorer/etherscan/testnet/api`;
  const form = new URLSearchParams({
    apikey: 'unused',
    module: 'contract',
    action: 'verifysourcecode',
    contractaddress: address,
    sourceCode: forgeStandardJson(),
    codeformat: 'solidity-standard-json-input',
    contractname: 'src/Counter.sol:Counter',
    compilerversion: 'v0.8.20+commit.a1b79de6',
    constructorArguements: AbiCoder.defaultAbiCoder().encode(['uint256'], [start]).slice(2),
  });
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
  });
  expect(res.status).toBe(200);
  const submit = await res.json();
  if (submit.status !== '1') return { submit, status: null };
  const sep = url.includes('?') ? '&' : '?';
  for (let i = 0; i < 300; i++) {
    const check = await fetch(
      `${url}${sep}${new URLSearchParams({ apikey: 'unused', module: 'contract', action: 'checkverifystatus', guid: submit.result })}`,
    );
    expect(check.status).toBe(200);
    const status = await check.json();
    if (status.result !== 'Pending in queue') return { submit, status };
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('verification still pending');
}

beforeAll(async () => {
  if (!haveForge) return;
  stack = await startStack();
  const api = client(stack.url);
  const dev = await login(api, stack.ca);
  const key = await newKey(api, dev, { name: 'deployer', scopes: ['read', 'write'] });
  doorUrl = `${stack.url}/rpc/testnet/${key.apiKey}`;
  project = mkdtempSync(path.join(tmpdir(), 'forge-verify-'));
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
    ].join('\n'),
  );
  const build = await forge(['build', '--build-info']);
  expect(build.out).toMatch(/Compiler run successful/);
}, 240_000);

afterAll(async () => {
  await stack?.stop();
  if (project) rmSync(project, { recursive: true, force: true });
});

// `forge verify-contract` itself cannot run offline: before submitting (and even for
// --show-standard-json-input) it resolves the compiler's commit by downloading
// https://binaries.soliditylang.org/bin/list.txt (ensure_solc_build_metadata ->
// lookup_compiler_version), whatever --compiler-version says. So forge builds and deploys here,
// and its verification wire is replayed with its build's standard JSON.
describeForge("forge-built contracts verified over forge verify-contract's wire", () => {
  it('shared base URL (chainid in the URL, the rest in the form): Pass - Verified, then already verified; the explorer decodes it', async () => {
    const address = await deploy(5n);
    const first = await forgeWire(address, 5n, 'shared');
    expect(first.submit).toMatchObject({ status: '1', message: 'OK' });
    expect(first.status).toEqual({ status: '1', message: 'OK', result: 'Pass - Verified' });
    const again = await forgeWire(address, 5n, 'shared');
    // forge reports "already verified" on exactly this result.
    expect(again.submit).toEqual({ status: '0', message: 'NOTOK', result: 'Contract source code already verified' });

    const body = await (await fetch(`${stack.url}/api/explorer/address/${address}/contract?network=testnet`)).json();
    expect(body.contract).toMatchObject({ name: 'Counter', match: 'full', compilerVersion: 'v0.8.20+commit.a1b79de6' });
    expect(body.contract.sources['src/Counter.sol']).toBe(COUNTER);

    const wallet = new Wallet(ANVIL_KEYS[2]!, providerOf(stack, 'testnet'));
    const tx = await wallet.sendTransaction({ to: address, data: '0xd09de08a' }); // increment()
    await tx.wait();
    const seen = await (await fetch(`${stack.url}/api/explorer/tx/${tx.hash}?network=testnet`)).json();
    expect(seen.transaction.method).toMatchObject({ name: 'increment', signature: 'increment()' });
    expect(seen.transaction.logs[0].decoded).toMatchObject({ event: 'Incremented', args: { number: '6' } });
  }, 300_000);

  it('network base URL (the --verifier blockscout form): Pass - Verified', async () => {
    const address = await deploy(7n);
    const res = await forgeWire(address, 7n, 'network');
    expect(res.status).toEqual({ status: '1', message: 'OK', result: 'Pass - Verified' });
  }, 300_000);

  it('a wrong source fails with the reason', async () => {
    const address = await deploy(8n);
    writeFileSync(path.join(project, 'src/Counter.sol'), COUNTER.replace('number++;', 'number += 2;'));
    try {
      const build = await forge(['build', '--build-info']);
      expect(build.out).toMatch(/Compiler run successful/);
      const res = await forgeWire(address, 8n, 'shared');
      expect(res.status.status).toBe('0');
      expect(res.status.result).toBe(
        'Fail - Unable to verify. the compiled runtime code is 308 bytes long, the code at the address 305 bytes',
      );
    } finally {
      writeFileSync(path.join(project, 'src/Counter.sol'), COUNTER);
    }
  }, 300_000);
});
