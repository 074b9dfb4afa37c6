/** Solidity sources by file name (e.g. `{'Contract.sol': '...'}`) and, optionally, the contract wanted. */
export interface CompileInput {
  sources: Record<string, string>;
  /** `Name`, or `File.sol:Name` when two submitted files define contracts of the same name. */
  contractName?: string;
}

/**
 * One deployable contract of the submitted files as the compiler built it: what GraphQL's
 * CompiledContract shows, and the immutable references that verification and the explorer need.
 */
export interface CompiledArtifact {
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

/**
 * The compiler settings of a compile, kept with each contract record: solc 0.8.20, EVM version
 * paris, optimizer on with 200 runs (docs/api.md, "Contracts"). Stored rows keep the settings they
 * were built with, hence plain strings and numbers.
 */
export interface CompilerInfo {
  version: string;
  evmVersion: string;
  optimizer: { enabled: boolean; runs: number };
}

export interface CompileResult {
  compiler: CompilerInfo;
  contracts: CompiledArtifact[];
  /** solc warnings and infos (never errors: those throw COMPILATION_FAILED). */
  warnings: CompileDiagnostic[];
  /** 0x SHA-256 of the submitted sources in canonical form (see `sourceHashOf`). */
  sourceHash: string;
}
