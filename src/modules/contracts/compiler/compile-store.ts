import { mkdir, readdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type pino from 'pino';
import type { InterpretedOutput } from './solc-output';

export interface CompileStoreOptions {
  /** The directory of the stored outputs (created on first write). */
  dir: string;
  /** Most outputs kept; past it the least recently written tenth is removed. */
  maxFiles: number;
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
  private files: number | undefined;
  private pruning: Promise<void> | undefined;

  constructor(private readonly options: CompileStoreOptions) {}

  async get(key: string): Promise<StoredCompile | undefined> {
    if (!KEY.test(key)) return undefined;
    let text: string;
    try {
      text = await readFile(this.fileOf(key), 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT')
        this.options.logger?.warn({ err: e }, 'compile store unreadable');
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
      await mkdir(this.options.dir, { recursive: true });
      const body: StoredFile = { format: 1, key, ...compiled };
      await writeFile(temporary, JSON.stringify(body), { mode: 0o600 });
      await rename(temporary, file);
      // Counted once, then followed (a key written twice counts twice until the next prune recounts).
      this.files = this.files === undefined ? await this.count() : this.files + 1;
      if (this.files > this.options.maxFiles) this.pruning ??= this.prune().finally(() => (this.pruning = undefined));
    } catch (e) {
      this.options.logger?.warn({ err: e }, 'compile output not stored');
      await unlink(temporary).catch(() => undefined);
    }
  }

  private fileOf(key: string): string {
    return path.join(this.options.dir, `${key}.json`);
  }

  private async count(): Promise<number> {
    return (await readdir(this.options.dir)).filter((name) => name.endsWith('.json')).length;
  }

  /** Removes the oldest files until a tenth of the room is free again. */
  private async prune(): Promise<void> {
    const names = (await readdir(this.options.dir)).filter((name) => name.endsWith('.json'));
    const dated = await Promise.all(
      names.map(async (name) => {
        const file = path.join(this.options.dir, name);
        return {
          file,
          mtime: await stat(file).then(
            (s) => s.mtimeMs,
            () => 0,
          ),
        };
      }),
    );
    dated.sort((a, b) => a.mtime - b.mtime);
    const keep = Math.floor(this.options.maxFiles * 0.9);
    const remove = dated.slice(0, Math.max(0, dated.length - keep));
    await Promise.all(remove.map((d) => unlink(d.file).catch(() => undefined)));
    this.files = dated.length - remove.length;
  }
}
