import { AppError } from '../../../kernel/errors/app-error';
import { APPROVED_LIBRARY, collectSources, LIBRARY_PREFIX, scanImports, sourceUnitNameOf } from './import-policy';

const paths = (source: string) => scanImports(source).map((d) => d.path);

describe('scanImports', () => {
  it('finds every form of import directive', () => {
    const source = `
      import "./A.sol";
      import './B.sol' as B;
      import * as C from "./C.sol";
      import {D, E as F} from "./D.sol";
      import
        { G }
        from
        "./G.sol";`;
    expect(paths(source)).toEqual(['./A.sol', './B.sol', './C.sol', './D.sol', './G.sol']);
  });

  it('ignores imports in comments and string literals, and identifiers that contain "import"', () => {
    const source = `
      // import "hardhat/console.sol";
      /* import "forge-std/Test.sol"; */
      contract X {
        string s = 'import "https://evil/x.sol";';
        string t = "say \\"import\\" here";
        uint importance; uint reimport;
      }`;
    expect(paths(source)).toEqual([]);
  });

  it('decodes escapes in the path as solc does', () => {
    expect(paths('import "\\x2e\\x2e/x.sol";')).toEqual(['../x.sol']);
    expect(paths('import "\\u002fetc/passwd";')).toEqual(['/etc/passwd']);
  });

  it('still reports an unterminated directive', () => {
    expect(paths('import "hardhat/console.sol"')).toEqual(['hardhat/console.sol']);
  });
});

describe('sourceUnitNameOf', () => {
  it('resolves relative paths against the importing file, as solc does', () => {
    expect(sourceUnitNameOf('contracts/Token.sol', './lib/Math.sol')).toEqual({
      sourceUnitName: 'contracts/lib/Math.sol',
    });
    expect(sourceUnitNameOf('contracts/Token.sol', '../Base.sol')).toEqual({ sourceUnitName: 'Base.sol' });
    expect(sourceUnitNameOf('a/b/C.sol', './.././x/./y.sol')).toEqual({ sourceUnitName: 'a/x/y.sol' });
    expect(sourceUnitNameOf(`${LIBRARY_PREFIX}token/ERC20/ERC20.sol`, '../../utils/Context.sol')).toEqual({
      sourceUnitName: `${LIBRARY_PREFIX}utils/Context.sol`,
    });
  });

  it('uses direct paths verbatim', () => {
    expect(sourceUnitNameOf('a/A.sol', 'b/B.sol')).toEqual({ sourceUnitName: 'b/B.sol' });
  });

  it('refuses climbing above the root (solc would silently clamp it) and malformed paths', () => {
    expect(sourceUnitNameOf('Contract.sol', '../x.sol')).toHaveProperty('refused');
    expect(sourceUnitNameOf('a/A.sol', '../../x.sol')).toHaveProperty('refused');
    expect(sourceUnitNameOf('A.sol', './/x.sol')).toHaveProperty('refused');
    expect(sourceUnitNameOf('A.sol', './x\\..\\y.sol')).toHaveProperty('refused');
  });
});

describe('collectSources', () => {
  it('adds the library files a submitted file reaches, following their own relative imports', async () => {
    const all = await collectSources([
      ['Token.sol', 'import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";\ncontract T {}'],
    ]);
    expect(Object.keys(all).sort()).toEqual([
      `${LIBRARY_PREFIX}interfaces/draft-IERC6093.sol`,
      `${LIBRARY_PREFIX}token/ERC20/ERC20.sol`,
      `${LIBRARY_PREFIX}token/ERC20/IERC20.sol`,
      `${LIBRARY_PREFIX}token/ERC20/extensions/IERC20Metadata.sol`,
      `${LIBRARY_PREFIX}utils/Context.sol`,
      'Token.sol',
    ]);
    expect(all[`${LIBRARY_PREFIX}utils/Context.sol`]).toContain('abstract contract Context');
  });

  it('lets submitted files import each other relatively or by exact name', async () => {
    const all = await collectSources([
      ['a/A.sol', 'import "../b/B.sol"; import "c/C.sol"; import "./A2.sol";'],
      ['a/A2.sol', 'contract A2 {}'],
      ['b/B.sol', 'contract B {}'],
      ['c/C.sol', 'contract C {}'],
    ]);
    expect(Object.keys(all)).toHaveLength(4);
  });

  it('pins the approved library', () => {
    expect(APPROVED_LIBRARY).toEqual({ name: '@openzeppelin/contracts', version: '5.0.2' });
  });

  it('names the import and the importing file', async () => {
    const error = await collectSources([
      ['A.sol', 'contract A {}'],
      ['sub/B.sol', 'import {console} from "hardhat/console.sol";'],
    ]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({
      code: 'IMPORT_NOT_ALLOWED',
      details: { import: 'hardhat/console.sol', file: 'sub/B.sol' },
    });
    expect((error as AppError).message).toContain('"hardhat/console.sol"');
  });
});
