import { readFileSync } from 'node:fs';
import { readFile, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../../../kernel/errors/app-error';
import type { SortedSources } from './compile-input';

/** Source unit names of the approved library start with this; nothing else outside the submitted files is importable. */
export const LIBRARY_PREFIX = '@openzeppelin/contracts/';

/** Folder of the installed approved library (node_modules/@openzeppelin/contracts). */
const LIBRARY_ROOT = path.dirname(require.resolve('@openzeppelin/contracts/package.json'));

/** Name and installed version of the approved library (pinned in package.json; 5.0.2 compiles with solc 0.8.20). */
export const APPROVED_LIBRARY = {
  name: '@openzeppelin/contracts',
  version: (JSON.parse(readFileSync(path.join(LIBRARY_ROOT, 'package.json'), 'utf8')) as { version: string }).version,
} as const;

/** An `import` directive found in a source: the decoded path literal and where the directive starts. */
export interface ImportDirective {
  path: string;
  start: number;
}

const isIdentifierStart = (c: string): boolean => /[A-Za-z_$]/.test(c);
const isIdentifierPart = (c: string): boolean => /[A-Za-z0-9_$]/.test(c);

/** Solidity's single-character string escapes. */
const SIMPLE_ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t', '\\': '\\', "'": "'", '"': '"' };

/** Reads the string literal opening at `open`; returns its decoded value and the index after it. */
function readStringLiteral(source: string, open: number): { value: string; next: number } {
  const quote = source[open]!;
  let value = '';
  let i = open + 1;
  while (i < source.length && source[i] !== quote) {
    const c = source[i]!;
    if (c !== '\\') {
      value += c;
      i += 1;
      continue;
    }
    const e = source[i + 1] ?? '';
    if (e === 'x' && /^[0-9a-fA-F]{2}$/.test(source.slice(i + 2, i + 4))) {
      value += String.fromCharCode(parseInt(source.slice(i + 2, i + 4), 16));
      i += 4;
    } else if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(source.slice(i + 2, i + 6))) {
      value += String.fromCharCode(parseInt(source.slice(i + 2, i + 6), 16));
      i += 6;
    } else if (e === '\n') {
      i += 2; // line continuation
    } else {
      value += SIMPLE_ESCAPES[e] ?? e;
      i += 2;
    }
  }
  return { value, next: i + 1 };
}

/**
 * The import directives of a Solidity source, found by a small lexer that skips comments and
 * string literals (an `import` inside either is not a directive). The path is the first string
 * literal between `import` and the next `;`, decoded as solc decodes it. Anything this misses is
 * still refused: the worker's import callback denies every file not supplied up front.
 */
export function scanImports(source: string): ImportDirective[] {
  const found: ImportDirective[] = [];
  let open: { start: number; path: string | null } | null = null;
  let i = 0;
  while (i < source.length) {
    const c = source[i]!;
    const next = source[i + 1];
    if (c === '/' && next === '/') {
      const lineEnd = source.indexOf('\n', i);
      i = lineEnd === -1 ? source.length : lineEnd + 1;
    } else if (c === '/' && next === '*') {
      const commentEnd = source.indexOf('*/', i + 2);
      i = commentEnd === -1 ? source.length : commentEnd + 2;
    } else if (c === '"' || c === "'") {
      const literal = readStringLiteral(source, i);
      if (open && open.path === null) open.path = literal.value;
      i = literal.next;
    } else if (isIdentifierStart(c)) {
      let end = i + 1;
      while (end < source.length && isIdentifierPart(source[end]!)) end += 1;
      if (source.slice(i, end) === 'import') {
        if (open?.path != null) found.push({ path: open.path, start: open.start });
        open = { start: i, path: null };
      }
      i = end;
    } else {
      if (c === ';' && open) {
        if (open.path !== null) found.push({ path: open.path, start: open.start });
        open = null;
      }
      i += 1;
    }
  }
  if (open?.path != null) found.push({ path: open.path, start: open.start });
  return found;
}

/** Where an import leads: solc's source unit name, or the reason it is refused. */
export type ImportTarget = { sourceUnitName: string } | { refused: string };

/**
 * solc's source unit name for `importPath` written in `importingFile` (solc's `absolutePath`):
 * a path whose first segment is `.` or `..` is relative to the importing file's folder, anything
 * else is used verbatim. Refuses what solc would silently clamp (`..` above the root), and empty
 * segments and backslashes, so that the name computed here is the one solc asks for.
 */
export function sourceUnitNameOf(importingFile: string, importPath: string): ImportTarget {
  const segments = importPath.split('/');
  if (segments[0] !== '.' && segments[0] !== '..') return { sourceUnitName: importPath };
  if (segments.some((s) => s === '') || importPath.includes('\\')) return { refused: 'the path is malformed' };
  const resolved = importingFile.split('/').slice(0, -1);
  for (const segment of segments) {
    if (segment === '.') continue;
    if (segment === '..') {
      if (resolved.length === 0) return { refused: 'the path leads outside the submitted files' };
      resolved.pop();
    } else {
      resolved.push(segment);
    }
  }
  return { sourceUnitName: resolved.join('/') };
}

/** Why a source unit name is not a file of the approved library, or null when it may be. */
function libraryNameProblem(sourceUnitName: string): string | null {
  const relative = sourceUnitName.slice(LIBRARY_PREFIX.length);
  const segments = relative.split('/');
  const hasTraversal = segments.some((s) => s === '' || s === '.' || s === '..');
  // The posix-normalised name must be the name itself and still inside the library prefix.
  const normalised = path.posix.normalize(sourceUnitName);
  if (
    hasTraversal ||
    /[\\\0]/.test(relative) ||
    normalised !== sourceUnitName ||
    !normalised.startsWith(LIBRARY_PREFIX)
  ) {
    return `the path leads outside ${APPROVED_LIBRARY.name}`;
  }
  if (!relative.endsWith('.sol')) return `only .sol files of ${APPROVED_LIBRARY.name} can be imported`;
  return null;
}

/** Library file contents by source unit name; the installed library never changes while running. */
const libraryFiles = new Map<string, string>();
let libraryRealRoot: Promise<string> | undefined;

/** Reads a library file, making sure its real path is inside the library folder; null when there is no such file. */
async function readLibraryFile(sourceUnitName: string): Promise<string | null> {
  const cached = libraryFiles.get(sourceUnitName);
  if (cached !== undefined) return cached;
  libraryRealRoot ??= realpath(LIBRARY_ROOT);
  const root = await libraryRealRoot;
  const candidate = path.resolve(root, ...sourceUnitName.slice(LIBRARY_PREFIX.length).split('/'));
  let real: string;
  try {
    real = await realpath(candidate);
  } catch (e) {
    if (['ENOENT', 'ENOTDIR'].includes((e as NodeJS.ErrnoException).code ?? '')) return null;
    throw e;
  }
  // Symlinks or anything else must not lead out of the library folder.
  const fromRoot = path.relative(root, real);
  if (fromRoot === '' || fromRoot.startsWith('..') || path.isAbsolute(fromRoot)) return null;
  if (!(await stat(real)).isFile()) return null;
  const content = await readFile(real, 'utf8');
  libraryFiles.set(sourceUnitName, content);
  return content;
}

/** Why an import path is refused before even resolving it, for the clearest message; null otherwise. */
function obviousProblem(importPath: string): string | null {
  if (importPath === '') return 'the path is empty';
  if (/^(?:www\.)?(?:github\.com|gitlab\.com|bitbucket\.org|raw\.githubusercontent\.com)\//i.test(importPath)) {
    return 'remote repositories cannot be imported';
  }
  if (importPath.startsWith('/') || importPath.startsWith('\\') || /^[A-Za-z]:[\\/]/.test(importPath)) {
    return 'absolute paths cannot be imported';
  }
  if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(importPath)) return 'URLs cannot be imported';
  if (importPath.startsWith('@openzeppelin/') && !importPath.startsWith(LIBRARY_PREFIX)) {
    return `only ${APPROVED_LIBRARY.name} is approved, not other @openzeppelin packages`;
  }
  return null;
}

const notAllowed = (importPath: string, file: string, reason: string): AppError =>
  new AppError(
    'IMPORT_NOT_ALLOWED',
    `Import "${importPath}" in ${file} is not allowed: ${reason}. Only ${APPROVED_LIBRARY.name}/... (${APPROVED_LIBRARY.version}) and the submitted files can be imported`,
    { import: importPath, file, reason },
  );

/**
 * Applies the import policy (docs/api.md, "Contracts") and returns every source solc needs: the submitted files
 * plus the library files they reach. Submitted files may import each other (relative, or by exact
 * name) and `@openzeppelin/contracts/...`; library files may import only library files.
 * Throws IMPORT_NOT_ALLOWED naming the first refused import.
 */
export async function collectSources(submitted: SortedSources): Promise<Record<string, string>> {
  const all: Record<string, string> = Object.fromEntries(submitted);
  const pending: Array<{ name: string; content: string; isLibrary: boolean }> = submitted.map(([name, content]) => ({
    name,
    content,
    isLibrary: false,
  }));
  while (pending.length > 0) {
    const file = pending.shift()!;
    for (const directive of scanImports(file.content)) {
      const importPath = directive.path;
      const obvious = obviousProblem(importPath);
      if (obvious) throw notAllowed(importPath, file.name, obvious);
      const target = sourceUnitNameOf(file.name, importPath);
      if ('refused' in target) throw notAllowed(importPath, file.name, target.refused);
      const name = target.sourceUnitName;
      if (!file.isLibrary && Object.hasOwn(all, name) && !name.startsWith(LIBRARY_PREFIX)) continue; // a submitted file
      if (!name.startsWith(LIBRARY_PREFIX)) {
        throw notAllowed(
          importPath,
          file.name,
          file.isLibrary
            ? `the path leads outside ${APPROVED_LIBRARY.name}`
            : 'it is neither a submitted file nor in the approved library',
        );
      }
      const problem = libraryNameProblem(name);
      if (problem) throw notAllowed(importPath, file.name, problem);
      if (Object.hasOwn(all, name)) continue;
      const content = await readLibraryFile(name);
      if (content === null) {
        throw notAllowed(
          importPath,
          file.name,
          `there is no such file in ${APPROVED_LIBRARY.name} ${APPROVED_LIBRARY.version}`,
        );
      }
      all[name] = content;
      pending.push({ name, content, isLibrary: true });
    }
  }
  return all;
}
