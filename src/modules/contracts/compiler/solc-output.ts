import { AppError } from '../../../kernel/errors/app-error';
import { assertAbiWithinLimits } from '../abi-limits';
import type { CompileDiagnostic, CompiledArtifact } from './compiler.types';
import { APPROVED_LIBRARY } from './import-policy';

/** The parts of solc's standard JSON output read here. */
interface SolcError {
  severity: string;
  type?: string;
  message: string;
  formattedMessage?: string;
  sourceLocation?: { file: string; start: number; end: number };
}

interface SolcContract {
  abi?: unknown[];
  evm?: {
    bytecode?: { object?: string };
    deployedBytecode?: { object?: string; immutableReferences?: CompiledArtifact['immutableReferences'] };
  };
}

interface SolcOutput {
  errors?: SolcError[];
  contracts?: Record<string, Record<string, SolcContract>>;
}

/** A contract of the submitted files that is not in `contracts`, and why. */
export interface SkippedContract {
  name: string;
  sourceFile: string;
  reason: string;
}

/** What a successful compile yields before contract selection. */
export interface InterpretedOutput {
  contracts: CompiledArtifact[];
  skipped: SkippedContract[];
  warnings: CompileDiagnostic[];
}

export function toDiagnostic(e: SolcError): CompileDiagnostic {
  const severity = e.severity === 'error' || e.severity === 'warning' ? e.severity : 'info';
  const location = e.sourceLocation;
  return {
    severity,
    message: e.message,
    formattedMessage: e.formattedMessage ?? e.message,
    sourceLocation: location ? { file: location.file, start: location.start, end: location.end } : null,
  };
}

/** A diagnostic of our own (crash, timeout) in solc's shape, so clients read every failure alike. */
export function serviceDiagnostic(message: string): CompileDiagnostic {
  return { severity: 'error', message, formattedMessage: `Error: ${message}`, sourceLocation: null };
}

export function compilationFailed(errors: CompileDiagnostic[], warnings: CompileDiagnostic[] = []): AppError {
  return new AppError('COMPILATION_FAILED', `Compilation failed: ${errors[0]?.message ?? 'unknown error'}`, {
    errors,
    warnings,
  });
}

/**
 * Runtime code of a library starts with solc's call protection, `PUSH20 <address> ADDRESS EQ`,
 * the address being zero until deployment.
 */
const LIBRARY_CALL_PROTECTION = '73' + '0'.repeat(40) + '3014';

/**
 * Why a contract of the submitted files cannot be deployed as-is, or null when it can. Told from
 * the bytecode: asking solc for the AST instead makes deeply nested expressions take minutes.
 */
function notDeployableReason(out: SolcContract): string | null {
  const bytecode = out.evm?.bytecode?.object ?? '';
  if (bytecode === '') return 'it is an interface or an abstract contract';
  if ((out.evm?.deployedBytecode?.object ?? '').startsWith(LIBRARY_CALL_PROTECTION)) return 'it is a library';
  // solc leaves __$<hash>$__ placeholders where external library functions must be linked.
  if (bytecode.includes('__$'))
    return 'it calls external library functions and would need linking (make them internal)';
  return null;
}

/**
 * Turns solc's output into the service's shape, or throws: IMPORT_NOT_ALLOWED when solc asked for
 * a file that was not supplied, COMPILATION_FAILED when solc reported errors, CONTRACT_TOO_COMPLEX
 * when a deployable contract's ABI is over the limits of abi-limits.ts. `contracts` holds the
 * deployable contracts of the submitted files, by file name then contract name.
 */
export function interpretOutput(
  outputJson: string,
  submittedFiles: readonly string[],
  refusedImports: readonly string[],
): InterpretedOutput {
  const output = JSON.parse(outputJson) as SolcOutput;
  const diagnostics = (output.errors ?? []).map(toDiagnostic);
  const errors = diagnostics.filter((d) => d.severity === 'error');
  const warnings = diagnostics.filter((d) => d.severity !== 'error');

  if (refusedImports.length > 0) {
    // Only reached when the pre-scan missed an import that solc still found: the callback refused it.
    const refused = refusedImports[0]!;
    const mention = errors.find((e) => e.message.includes(`"${refused}"`));
    const file = mention?.sourceLocation?.file ?? 'the sources';
    throw new AppError(
      'IMPORT_NOT_ALLOWED',
      `Import "${refused}" in ${file} is not allowed. Only ${APPROVED_LIBRARY.name}/... (${APPROVED_LIBRARY.version}) and the submitted files can be imported`,
      { import: refused, file },
    );
  }
  if (errors.length > 0) throw compilationFailed(errors, warnings);

  const contracts: CompiledArtifact[] = [];
  const skipped: SkippedContract[] = [];
  for (const file of submittedFiles) {
    for (const [name, out] of Object.entries(output.contracts?.[file] ?? {})) {
      const reason = notDeployableReason(out);
      if (reason) {
        skipped.push({ name, sourceFile: file, reason });
        continue;
      }
      // Bounded before anything keeps or documents it: 422 CONTRACT_TOO_COMPLEX (docs/api.md, "Contracts").
      assertAbiWithinLimits(name, out.abi ?? []);
      contracts.push({
        name,
        sourceFile: file,
        abi: out.abi ?? [],
        bytecode: `0x${out.evm!.bytecode!.object}`,
        deployedBytecode: `0x${out.evm?.deployedBytecode?.object ?? ''}`,
        immutableReferences: out.evm?.deployedBytecode?.immutableReferences ?? {},
      });
    }
  }
  return { contracts, skipped, warnings };
}

/**
 * The contracts a caller asked for: all of them, or the one named `Name` / `File.sol:Name`.
 * An unknown or ambiguous name is the caller's mistake: 400 VALIDATION_FAILED with the choices.
 */
export function selectContracts(
  output: InterpretedOutput,
  wanted: { file?: string; name: string } | undefined,
): CompiledArtifact[] {
  if (!wanted) return output.contracts;
  const matches = (c: { name: string; sourceFile: string }) =>
    c.name === wanted.name && (wanted.file === undefined || c.sourceFile === wanted.file);
  const found = output.contracts.filter(matches);
  const label = wanted.file ? `${wanted.file}:${wanted.name}` : wanted.name;
  if (found.length === 1) return found;
  if (found.length > 1) {
    const qualified = found.map((c) => `${c.sourceFile}:${c.name}`);
    throw new AppError('VALIDATION_FAILED', `contract name ${label} is ambiguous; use one of ${qualified.join(', ')}`, {
      field: 'contractName',
      available: qualified,
    });
  }
  const available = output.contracts.map((c) => c.name);
  const skipped = output.skipped.find(matches);
  const why = skipped ? `${label} is not deployable: ${skipped.reason}` : `no contract named ${label}`;
  throw new AppError('VALIDATION_FAILED', `${why}; available: ${available.join(', ') || 'none'}`, {
    field: 'contractName',
    available,
  });
}
