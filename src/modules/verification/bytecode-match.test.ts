import { compareCreation, compareRuntime, metadataRanges } from './bytecode-match';
import { compilerVersions, evmVersions, installedCompiler } from './compiler-set';
import { prepareInput, type VerificationRequest } from './verification.service';

// Comparing compiled and deployed code (docs/api.md, "Verification").

const META = (hash: string) => `a2646970667358221220${hash}64736f6c63430008140033`;
const H1 = '11'.repeat(32);
const H2 = '22'.repeat(32);
const BODY = '6080604052348015600f57600080fd5b50';
const IMMUTABLE_AT = BODY.length / 2;
// Runtime code: a body, a 32-byte immutable, a metadata trailer.
const runtime = (immutable: string, hash: string) => `0x${BODY}7f${immutable}${META(hash)}`;
const refs = { '5': [{ start: IMMUTABLE_AT + 1, length: 32 }] };

describe('compareRuntime', () => {
  it('full when equal once the immutables are masked', () => {
    expect(compareRuntime(runtime('ab'.repeat(32), H1), runtime('00'.repeat(32), H1), refs)).toEqual({ match: 'full' });
  });

  it('partial when only the metadata hash differs', () => {
    expect(compareRuntime(runtime('00'.repeat(32), H1), runtime('00'.repeat(32), H2), refs)).toEqual({
      match: 'partial',
    });
  });

  it('an immutable is not masked without its reference: the first differing byte is named', () => {
    expect(compareRuntime(runtime('ab'.repeat(32), H1), runtime('00'.repeat(32), H1), {})).toEqual({
      match: null,
      reason: `the runtime code differs from the compiled code at byte ${IMMUTABLE_AT + 1}`,
    });
  });

  it('different lengths are named', () => {
    expect(compareRuntime(`0x${BODY}`, `0x${BODY}00`)).toEqual({
      match: null,
      reason: `the compiled runtime code is ${BODY.length / 2 + 1} bytes long, the code at the address ${BODY.length / 2} bytes`,
    });
  });

  it('unlinked libraries are refused with that reason', () => {
    const out = compareRuntime(`0x${BODY}`, `0x${BODY.slice(0, 4)}__$abc$__`);
    expect(out).toEqual({ match: null, reason: expect.stringMatching(/libraries are not supported/) });
  });
});

describe('compareCreation', () => {
  const creation = `${BODY}${META(H1)}`;
  it('the rest of the input after the creation code is the constructor arguments', () => {
    expect(compareCreation(`0x${creation}${'00'.repeat(31)}05`, creation)).toEqual({
      match: 'full',
      constructorArgs: `${'00'.repeat(31)}05`,
    });
  });

  it('partial when the metadata differs, failing with the first differing byte otherwise', () => {
    expect(compareCreation(`0x${BODY}${META(H2)}`, creation)).toEqual({ match: 'partial', constructorArgs: '' });
    expect(compareCreation(`0x60${BODY.slice(2)}${META(H1)}`.replace('0x6080', '0x6180'), creation)).toEqual({
      match: null,
      reason: 'the creation code differs from the compiled code at byte 0',
    });
  });

  it('an input shorter than the compiled code fails with the lengths', () => {
    expect(compareCreation('0x6080', creation)).toEqual({
      match: null,
      reason: `the creation transaction's input (2 bytes) is shorter than the compiled creation code (${creation.length / 2} bytes)`,
    });
  });
});

describe('metadataRanges', () => {
  it('finds every trailer (a contract that creates another carries two)', () => {
    const code = `${BODY}${META(H1)}${BODY}${META(H2)}`;
    expect(metadataRanges(code)).toHaveLength(2);
  });
});

describe('the compiler set', () => {
  const INSTALLED = [
    'v0.8.20+commit.a1b79de6',
    'v0.8.19+commit.7dd6d404',
    'v0.8.24+commit.e11b9ed9',
    'v0.8.28+commit.7893614a',
  ];

  it('is every installed release (the portal release first), with the EVM versions of any of them', () => {
    expect(compilerVersions()).toEqual(INSTALLED);
    expect(evmVersions()).toEqual([
      'homestead',
      'tangerineWhistle',
      'spuriousDragon',
      'byzantium',
      'constantinople',
      'petersburg',
      'istanbul',
      'berlin',
      'london',
      'paris',
      'shanghai',
      'cancun',
      'prague',
    ]);
  });

  it('accepts an installed release with or without v and a platform suffix', () => {
    for (const v of ['v0.8.24+commit.e11b9ed9', '0.8.24+commit.e11b9ed9', 'v0.8.24+commit.e11b9ed9.Linux.gcc']) {
      expect(installedCompiler(v)).toMatchObject({ version: 'v0.8.24+commit.e11b9ed9', release: '0.8.24' });
    }
    expect(installedCompiler('0.8.19+commit.7dd6d404.Emscripten.clang')).toMatchObject({ release: '0.8.19' });
    expect(installedCompiler('v0.8.20+commit.a1b79de6')?.evmVersions.at(-1)).toBe('shanghai');
    expect(installedCompiler('v0.8.19+commit.7dd6d404')?.evmVersions.at(-1)).toBe('paris');
    expect(installedCompiler('v0.8.24+commit.e11b9ed9')?.evmVersions.at(-1)).toBe('cancun');
    expect(installedCompiler('v0.8.28+commit.7893614a')?.evmVersions.at(-1)).toBe('prague');
  });

  it('refuses releases not installed, wrong commits and anything else', () => {
    for (const v of ['v0.8.21+commit.d9974bed', 'v0.8.20+commit.deadbeef', '0.8.20', 'latest', '']) {
      expect(installedCompiler(v)).toBeNull();
    }
  });
});

describe('prepareInput', () => {
  const base: VerificationRequest = {
    address: '0x0000000000000000000000000000000000000001',
    codeFormat: 'solidity-standard-json-input',
    sourceCode: '',
    contractName: 'a.sol:A',
    compilerVersion: 'v0.8.20+commit.a1b79de6',
  };
  const solc0820 = installedCompiler('v0.8.20+commit.a1b79de6')!;
  const solc0828 = installedCompiler('v0.8.28+commit.7893614a')!;

  it("keeps the caller's settings but asks solc only for the wanted contract, without the model checker", () => {
    const out = prepareInput(
      {
        ...base,
        sourceCode: JSON.stringify({
          language: 'Solidity',
          sources: { 'a.sol': { content: 'contract A {}' } },
          settings: { optimizer: { enabled: true, runs: 999 }, evmVersion: 'paris', modelChecker: { engine: 'all' } },
        }),
      },
      solc0820,
    );
    if ('reason' in out) throw new Error(out.reason);
    const json = JSON.parse(out.standardJson);
    expect(json.settings.modelChecker).toBeUndefined();
    expect(Object.keys(json.settings.outputSelection)).toEqual(['a.sol']);
    expect(out).toMatchObject({
      file: 'a.sol',
      name: 'A',
      evmVersion: 'paris',
      optimizer: { enabled: true, runs: 999 },
    });
  });

  it('refuses what it cannot compile, each with its reason', () => {
    expect(prepareInput({ ...base, sourceCode: 'not json' }, solc0820)).toEqual({
      reason: 'sourceCode is not a standard-JSON input',
    });
    expect(
      prepareInput({ ...base, sourceCode: JSON.stringify({ sources: { 'a.sol': { urls: ['ipfs://x'] } } }) }, solc0820),
    ).toEqual({ reason: 'source a.sol has no content (urls are not fetched)' });
    expect(
      prepareInput(
        {
          ...base,
          contractName: 'b.sol:A',
          sourceCode: JSON.stringify({ sources: { 'a.sol': { content: '' } } }),
        },
        solc0820,
      ),
    ).toEqual({ reason: 'contractname names b.sol, which is not in the sources' });
    expect(prepareInput({ ...base, contractName: 'a.sol:1A' }, solc0820)).toEqual({
      reason: 'contractname must be path:Name or Name',
    });
    expect(
      prepareInput(
        {
          ...base,
          sourceCode: JSON.stringify({ sources: { 'a.sol': { content: '' } }, settings: { evmVersion: 'prague' } }),
        },
        solc0820,
      ),
    ).toEqual({
      reason: 'evmVersion prague is not supported by v0.8.20+commit.a1b79de6 (supported: homestead to shanghai)',
    });
    const prague = {
      ...base,
      sourceCode: JSON.stringify({ sources: { 'a.sol': { content: '' } }, settings: { evmVersion: 'prague' } }),
    };
    expect(prepareInput(prague, solc0828)).toMatchObject({ evmVersion: 'prague' });
  });
});
