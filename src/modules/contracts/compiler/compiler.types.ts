/** Solidity sources by file name (e.g. `{'Contract.sol': '...'}`) and, optionally, the contract wanted. */
export interface CompileInput {
  sources: Record<string, string>;
  /** `Name`, or `File.sol:Name` when two submitted files define contracts of the same name. */
  contractName?: string;
}

/** One deployable contract of the submitted files. */
export interface CompiledContract {
  name: string;
  sourceFile: string;
  abi: unknown[];
  /** Creation bytecode, 0x hex. */
  bytecode: string;
  /** Runtime bytecode, 0x hex. */
  deployedBytecode: string;
  /** solc's `evm.deployedBytecode.immutableReferences`: AST id → byte ranges in the runtime code. */
  immutableReferences: Record<string, Array<{ start: number; length: number }>>;
}

/** A compiler message; `sourceLocation` is a byte range of a source file (null when solc gives none). */
export interface CompileDiagnostic {
  severity: 'error' | 'warning' | 'info';
  message: string;
  formattedMessage: string;
  sourceLocation: { file: string; start: number; end: number } | null;
}

/** The compiler settings every compile uses (docs/api.md, "Contracts"). */
export interface CompilerInfo {
  version: string;
  evmVersion: 'paris';
  optimizer: { enabled: true; runs: 200 };
}

export interface CompileResult {
  compiler: CompilerInfo;
  contracts: CompiledContract[];
  /** solc warnings and infos (never errors: those throw COMPILATION_FAILED). */
  warnings: CompileDiagnostic[];
  /** 0x SHA-256 of the submitted sources in canonical form (see `sourceHashOf`). */
  sourceHash: string;
}
