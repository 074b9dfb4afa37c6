import { mkdir, readdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type pino from 'pino';
import type { InterpretedOutput } from './solc-output';

export interface CompileStoreOptions {
  /** The directory of the stored outputs (created on first write). */
  dir: string;
  /** Most bytes kept; past it the least recently written outputs go until a tenth is free. */
  maxBytes: number;
  logger?: pino.Logger;
}

/** A stored successful compile: solc's long version and the interpreted output. */
export interface StoredCompile {
  version: string;
  output: InterpretedOutput;
}

interface StoredFile extends StoredCompile {
  format: 1;
  key: string;
}

const KEY = /^[0-9a-f]{64}$/;

/**
 * Successful compile outputs on disk, one JSON file per cache key (the SHA-256 of the solc release,
 * settings, library version and sources): a restarted service, or another instance sharing the
 * directory, answers a source compiled before without running solc again. Only the service writes
 * here (atomically: a temporary file renamed into place), so the directory is as trusted as the
 * rest of DATA_DIR. A missing, unreadable or foreign file is a miss, never an error.
 */
export class CompileStore {
  /** Bytes of the stored outputs: counted from the directory once, then followed. */
  private bytes: number | undefined;
  private pruning: Promise<void> | undefined;
  /** A failure is logged as a warning once (a read-only or full disk would repeat it on every compile). */
  private warned = false;

  constructor(private readonly options: CompileStoreOptions) {}

  async get(key: string): Promise<StoredCompile | undefined> {
    if (!KEY.test(key)) return undefined;
    let text: string;
    try {
      text = await readFile(this.fileOf(key), 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') this.failed(e, 'compile store unreadable');
      return undefined;
    }
    try {
      const stored = JSON.parse(text) as Partial<StoredFile>;
      if (
        stored.format !== 1 ||
        stored.key !== key ||
        typeof stored.version !== 'string' ||
        !Array.isArray(stored.output?.contracts) ||
        !Array.isArray(stored.output?.skipped) ||
        !Array.isArray(stored.output?.warnings)
      ) {
        return undefined;
      }
      return { version: stored.version, output: stored.output };
    } catch {
      return undefined;
    }
  }

  /** Stores an output; failures are logged, never thrown (the compile itself succeeded). */
  async put(key: string, compiled: StoredCompile): Promise<void> {
    if (!KEY.test(key)) return;
    const file = this.fileOf(key);
    const temporary = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    try {
      const body = JSON.stringify({ format: 1, key, ...compiled } satisfies StoredFile);
      const size = Buffer.byteLength(body);
      // One output larger than a tenth of the room would push out too many others.
      if (size > this.options.maxBytes / 10) return;
      await mkdir(this.options.dir, { recursive: true, mode: 0o700 });
      await writeFile(temporary, body, { mode: 0o600 });
      await rename(temporary, file);
      // A key written twice counts twice until the next prune measures the directory again.
      this.bytes = this.bytes === undefined ? (await this.measure()).total : this.bytes + size;
      if (this.bytes > this.options.maxBytes) this.pruning ??= this.prune().finally(() => (this.pruning = undefined));
    } catch (e) {
      this.failed(e, 'compile output not stored');
      await unlink(temporary).catch(() => undefined);
    }
  }

  private failed(err: unknown, message: string): void {
    const logger = this.options.logger;
    if (!logger) return;
    if (this.warned) {
      logger.debug({ err, dir: this.options.dir }, message);
    } else {
      this.warned = true;
      logger.warn({ err, dir: this.options.dir }, `${message} (further failures are logged at debug level)`);
    }
  }

  private fileOf(key: string): string {
    return path.join(this.options.dir, `${key}.json`);
  }

  /** The stored outputs, oldest first, and their total size. */
  private async measure(): Promise<{ files: Array<{ file: string; mtime: number; size: number }>; total: number }> {
    const names = (await readdir(this.options.dir)).filter(
      (name) => KEY.test(name.slice(0, -5)) && name.endsWith('.json'),
    );
    const files = await Promise.all(
      names.map(async (name) => {
        const file = path.join(this.options.dir, name);
        const s = await stat(file).catch(() => undefined);
        return { file, mtime: s?.mtimeMs ?? 0, size: s?.size ?? 0 };
      }),
    );
    files.sort((a, b) => a.mtime - b.mtime);
    return { files, total: files.reduce((sum, f) => sum + f.size, 0) };
  }

  /** Removes the oldest outputs until a tenth of the room is free again. */
  private async prune(): Promise<void> {
    const { files, total } = await this.measure();
    let left = total;
    const goal = this.options.maxBytes * 0.9;
    for (const f of files) {
      if (left <= goal) break;
      await unlink(f.file).catch(() => undefined);
      left -= f.size;
    }
    this.bytes = left;
  }
}
