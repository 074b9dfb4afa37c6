import { interpretOutput, selectContracts } from './solc-output';

const output = (value: unknown) => JSON.stringify(value);

describe('interpretOutput', () => {
  it('turns an import the worker callback refused into IMPORT_NOT_ALLOWED naming it and its file', () => {
    const solcOutput = output({
      errors: [
        {
          severity: 'error',
          type: 'ParserError',
          message: 'Source "sneaky.sol" not found: import not allowed',
          formattedMessage: 'ParserError: Source "sneaky.sol" not found',
          sourceLocation: { file: 'A.sol', start: 0, end: 20 },
        },
      ],
    });
    expect(() => interpretOutput(solcOutput, ['A.sol'], ['sneaky.sol'])).toThrow(
      expect.objectContaining({ code: 'IMPORT_NOT_ALLOWED', details: { import: 'sneaky.sol', file: 'A.sol' } }),
    );
  });

  it('keeps warnings and infos apart from errors, with null locations where solc gives none', () => {
    const interpreted = interpretOutput(
      output({
        errors: [
          {
            severity: 'warning',
            message: 'w',
            formattedMessage: 'W',
            sourceLocation: { file: 'A.sol', start: 1, end: 2 },
          },
          { severity: 'info', message: 'i' },
        ],
        contracts: {
          'A.sol': { A: { abi: [], evm: { bytecode: { object: '6080' }, deployedBytecode: { object: '6080' } } } },
        },
      }),
      ['A.sol'],
      [],
    );
    expect(interpreted.warnings).toEqual([
      { severity: 'warning', message: 'w', formattedMessage: 'W', sourceLocation: { file: 'A.sol', start: 1, end: 2 } },
      { severity: 'info', message: 'i', formattedMessage: 'i', sourceLocation: null },
    ]);
    expect(interpreted.contracts).toEqual([
      {
        name: 'A',
        sourceFile: 'A.sol',
        abi: [],
        bytecode: '0x6080',
        deployedBytecode: '0x6080',
        immutableReferences: {},
      },
    ]);
    expect(selectContracts(interpreted, { file: 'A.sol', name: 'A' })).toHaveLength(1);
  });
});
