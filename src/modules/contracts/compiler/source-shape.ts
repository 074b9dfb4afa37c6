import { createHash } from 'node:crypto';
import type { SortedSources } from './compile-input';

/**
 * Solidity source with its comments removed and every run of whitespace made one space; string
 * literals are kept as written. Two sources that differ only in comments or layout compile the
 * same way, so they share one memory of a compile that ran out of time or memory.
 */
export function stripCommentsAndWhitespace(source: string): string {
  let out = '';
  let pendingSpace = false;
  let i = 0;
  const n = source.length;
  while (i < n) {
    const c = source[i]!;
    const next = source[i + 1];
    if (c === '/' && next === '/') {
      while (i < n && source[i] !== '\n') i++;
      pendingSpace = true;
    } else if (c === '/' && next === '*') {
      const end = source.indexOf('*/', i + 2);
      i = end === -1 ? n : end + 2;
      pendingSpace = true;
    } else if (c === '"' || c === "'") {
      if (pendingSpace && out !== '') out += ' ';
      pendingSpace = false;
      let j = i + 1;
      while (j < n && source[j] !== c && source[j] !== '\n') j += source[j] === '\\' ? 2 : 1;
      out += source.slice(i, Math.min(j + 1, n));
      i = j + 1;
    } else if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\v') {
      pendingSpace = true;
      i++;
    } else {
      if (pendingSpace && out !== '') out += ' ';
      pendingSpace = false;
      out += c;
      i++;
    }
  }
  return out;
}

/** Key of what solc will see, whatever the comments, layout and file names: SHA-256 of the stripped sources. */
export function sourceShapeKey(sources: SortedSources): string {
  const stripped = sources.map(([, content]) => stripCommentsAndWhitespace(content)).sort();
  return createHash('sha256').update(JSON.stringify(stripped)).digest('hex');
}
