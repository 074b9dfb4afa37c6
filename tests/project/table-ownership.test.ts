import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

// Every table has one owning module (docs/architecture.md, "Tables: one owner each"): this reads
// that table and every SQL statement under src/, and fails when a folder names a table it neither
// owns nor is listed as reading, reads one outside a read model (a `*.query.ts` file listed beside
// the table), or writes one it does not own.

const root = path.resolve(__dirname, '../..');

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? filesUnder(full) : [full];
  });
}

interface Ownership {
  owner: string;
  readers: string[];
  /** The readers' read models: the `*.query.ts` files that read the table. */
  readModels: string[];
}

/** The ownership table of docs/architecture.md: table → owner, readers and read models. */
function documentedOwners(): Map<string, Ownership> {
  const doc = readFileSync(path.join(root, 'docs/architecture.md'), 'utf8');
  const section = doc.split('## Tables: one owner each')[1]!.split('\n## ')[0]!;
  const owners = new Map<string, Ownership>();
  for (const line of section.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    const table = /^`([a-z_]+)`$/.exec(cells[1] ?? '')?.[1];
    const owner = /^`([a-z_]+)`$/.exec(cells[2] ?? '')?.[1];
    if (!table || !owner) continue;
    const readers = [...(cells[3] ?? '').matchAll(/`([a-z_]+)`/g)].map((m) => m[1]!);
    const readModels = [...(cells[4] ?? '').matchAll(/`([a-z0-9-]+\.query\.ts)`/g)].map((m) => m[1]!);
    owners.set(table, { owner, readers, readModels });
  }
  return owners;
}

/** Tables and views the migrations create. */
function migratedTables(): Set<string> {
  const tables = new Set<string>();
  for (const file of filesUnder(path.join(root, 'migrations'))) {
    for (const m of readFileSync(file, 'utf8').matchAll(/CREATE (?:OR REPLACE )?(?:TABLE|VIEW) ([a-z_]+)/g)) {
      tables.add(m[1]!);
    }
  }
  return tables;
}

/** The folder a source file belongs to: a module's name, else the top folder of src/ (or `kernel`). */
function folderOf(file: string): string {
  const parts = path.relative(path.join(root, 'src'), file).split(path.sep);
  if (parts[0] === 'modules') return parts[1]!;
  return parts.length === 1 ? 'kernel' : parts[0]!;
}

const SQL = /\b(INSERT INTO|UPDATE|DELETE FROM|FROM|JOIN|TABLE)\s+([a-z_]+)\b/g;
const WRITES = new Set(['INSERT INTO', 'UPDATE', 'DELETE FROM', 'TABLE']);

const sources = () => filesUnder(path.join(root, 'src')).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));

/** Every table a file's SQL names that its folder does not own, with the verb. */
function foreignTables(file: string, owners: Map<string, Ownership>): Array<{ verb: string; table: string }> {
  const folder = folderOf(file);
  return [...readFileSync(file, 'utf8').matchAll(SQL)]
    .map(([, verb, table]) => ({ verb: verb!, table: table! }))
    .filter(({ table }) => owners.has(table) && owners.get(table)!.owner !== folder);
}

describe('table ownership', () => {
  const owners = documentedOwners();
  const tables = migratedTables();

  it('docs/architecture.md names an owner for every table the migrations create, and no other', () => {
    expect([...owners.keys()].sort()).toEqual([...tables].sort());
  });

  it('no SQL under src/ names a table its folder neither owns nor reads, or writes one it does not own', () => {
    const violations: string[] = [];
    for (const file of sources()) {
      const folder = folderOf(file);
      for (const { verb, table } of foreignTables(file, owners)) {
        const entry = owners.get(table)!;
        const where = `${path.relative(root, file)}: ${verb} ${table}`;
        if (WRITES.has(verb)) violations.push(`${where} (owned by ${entry.owner})`);
        else if (!entry.readers.includes(folder)) violations.push(`${where} (${folder} is not a listed reader)`);
      }
    }
    expect(violations).toEqual([]);
  });

  it("reads another module's table only in a read model listed beside it", () => {
    const violations: string[] = [];
    for (const file of sources()) {
      const relative = path.relative(root, file);
      for (const { verb, table } of foreignTables(file, owners)) {
        if (!owners.get(table)!.readModels.includes(path.basename(file))) {
          violations.push(`${relative}: ${verb} ${table} (not a read model listed for ${table})`);
        }
      }
    }
    expect(violations).toEqual([]);
  });

  it('lists only read models that exist and read their table', () => {
    const queryFiles = new Map(sources().map((f) => [path.basename(f), f]));
    const stale: string[] = [];
    for (const [table, { readModels }] of owners) {
      for (const name of readModels) {
        const file = queryFiles.get(name);
        if (!file || !foreignTables(file, owners).some((t) => t.table === table)) stale.push(`${table}: ${name}`);
      }
    }
    expect(stale).toEqual([]);
  });
});
