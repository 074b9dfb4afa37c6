import { createHash } from 'node:crypto';
import { AppError } from '../../../kernel/errors/app-error';
import type { CompileInput } from './compiler.types';

/** The sources may fill the whole 1 MiB request body (docs/api.md, "Conventions"); the body limit is what refuses more. */
export const DEFAULT_MAX_SOURCE_BYTES = 1024 * 1024;
export const MAX_SOURCE_FILES = 50;
const MAX_FILE_NAME_LENGTH = 200;
/**
 * One path segment of a submitted file name. No `@` (a submitted `@openzeppelin/...` file would
 * shadow the approved library), no `.`/`..` segments, no backslashes, no spaces.
 */
const FILE_NAME_SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;
/** `Name` or `File.sol:Name`. */
const CONTRACT_NAME = /^(?:(.+\.sol):)?([A-Za-z_$][A-Za-z0-9_$]*)$/;

/** Submitted files sorted by name: the canonical form hashed and compiled. */
export type SortedSources = ReadonlyArray<readonly [fileName: string, content: string]>;

/** A validated compile request. */
export interface ValidCompileInput {
  sources: SortedSources;
  contractName?: { file?: string; name: string };
}

interface FieldProblem {
  field: string;
  reasons: string[];
}

/** Why a submitted file name is refused, or null when it is fine. */
function fileNameProblem(fileName: string): string | null {
  if (fileName.length === 0) return 'file name is empty';
  if (fileName.length > MAX_FILE_NAME_LENGTH) return `file name is longer than ${MAX_FILE_NAME_LENGTH} characters`;
  if (!fileName.endsWith('.sol')) return `file name "${fileName}" must end in .sol`;
  if (fileName.startsWith('/')) return `file name "${fileName}" must be relative, not absolute`;
  const segments = fileName.split('/');
  if (segments.some((s) => s === '.' || s === '..')) return `file name "${fileName}" must not contain . or .. segments`;
  if (!segments.every((s) => FILE_NAME_SEGMENT.test(s))) {
    return `file name "${fileName}" may use only letters, digits, _ . - and / between parts`;
  }
  return null;
}

/** Code-unit order, independent of the process locale (the hash must not depend on it). */
const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Checks sizes, names and types; throws VALIDATION_FAILED listing every problem found. */
export function validateCompileInput(
  input: CompileInput,
  maxSourceBytes = DEFAULT_MAX_SOURCE_BYTES,
): ValidCompileInput {
  const problems: FieldProblem[] = [];
  const sources: unknown = input?.sources;
  if (typeof sources !== 'object' || sources === null || Array.isArray(sources)) {
    throw new AppError('VALIDATION_FAILED', 'sources must be an object of file name to Solidity source', {
      fields: [{ field: 'sources', reasons: ['must be an object of file name to Solidity source'] }],
    });
  }
  const entries = Object.entries(sources as Record<string, unknown>);
  if (entries.length === 0) problems.push({ field: 'sources', reasons: ['at least one file is required'] });
  if (entries.length > MAX_SOURCE_FILES) {
    problems.push({
      field: 'sources',
      reasons: [`at most ${MAX_SOURCE_FILES} files are accepted (got ${entries.length})`],
    });
  }
  let totalBytes = 0;
  for (const [fileName, content] of entries) {
    const reasons: string[] = [];
    const nameProblem = fileNameProblem(fileName);
    if (nameProblem) reasons.push(nameProblem);
    if (typeof content !== 'string') {
      reasons.push('content must be a string');
    } else {
      if (content.trim().length === 0) reasons.push('content is empty');
      totalBytes += Buffer.byteLength(content, 'utf8');
    }
    if (reasons.length > 0) problems.push({ field: `sources["${fileName}"]`, reasons });
  }
  if (totalBytes > maxSourceBytes) {
    problems.push({
      field: 'sources',
      reasons: [`sources total ${totalBytes} bytes; at most ${maxSourceBytes} are accepted`],
    });
  }

  let contractName: ValidCompileInput['contractName'];
  if (input.contractName !== undefined && input.contractName !== null) {
    const match = typeof input.contractName === 'string' ? CONTRACT_NAME.exec(input.contractName) : null;
    if (!match) {
      problems.push({ field: 'contractName', reasons: ['must be a Solidity identifier, or File.sol:Name'] });
    } else {
      contractName = match[1] === undefined ? { name: match[2]! } : { file: match[1], name: match[2]! };
    }
  }

  if (problems.length > 0) {
    const first = problems[0]!;
    throw new AppError('VALIDATION_FAILED', `Invalid compile input: ${first.field}: ${first.reasons[0]}`, {
      fields: problems,
    });
  }
  const sorted = (entries as Array<[string, string]>).sort(([a], [b]) => byCodeUnits(a, b));
  return { sources: sorted, contractName };
}

/** 0x SHA-256 of the sources in canonical form: JSON of the [fileName, content] pairs sorted by file name. */
export function sourceHashOf(sources: SortedSources): string {
  return '0x' + createHash('sha256').update(JSON.stringify(sources)).digest('hex');
}
