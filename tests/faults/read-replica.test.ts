import { createDataSource, runMigrations } from '../../src/database/data-source';
import { client, type Client } from '../kit/http';
import { login } from '../kit/login';
import type { ServiceProcess } from '../kit/process';
import { createTestDatabase } from '../kit/stack';
import { logLines, sql, startFaultEnv, type FaultEnv } from './fault-env';

// DATABASE_READ_URL (docs/api.md, "Operations"): the explorer's reads for a request without
// credentials go to the replica, every other read to the primary. The "replica" here is another
// database with the same schema and a block only it holds, so each answer shows where it was read.

/** A block hash no chain has: present in the replica database only. */
const REPLICA_ONLY_HASH = `0x${'ab'.repeat(32)}`;

let env: FaultEnv;
let replica: { url: string; drop(): Promise<void> };
let service: ServiceProcess;
let api: Client;

beforeAll(async () => {
  env = await startFaultEnv();
  replica = await createTestDatabase();
  const ds = createDataSource(replica.url, { poolSize: 2 });
  await ds.initialize();
  await runMigrations(ds);
  await ds.destroy();
  await sql(
    replica.url,
    `INSERT INTO explorer_blocks (network, number, hash, parent_hash, timestamp, miner, transaction_count, gas_used, gas_limit, extra_data)
     VALUES ('testnet', 7, $1, $2, 1700000000, '0x0000000000000000000000000000000000000001', 0, 0, 30000000, '0x')`,
    [REPLICA_ONLY_HASH, `0x${'cd'.repeat(32)}`],
  );
  service = await env.spawn({ DATABASE_READ_URL: replica.url });
  api = client(service.url);
}, 120_000);

afterAll(async () => {
  await env?.stop();
  await replica?.drop().catch(() => undefined);
});

const BLOCK = `query($id: String!) { block(id: $id, network: testnet) { found block { number hash } } }`;

describe('DATABASE_READ_URL', () => {
  it('serves an anonymous explorer read from the replica (GraphQL and REST)', async () => {
    const gql = await api.graphql(BLOCK, { id: REPLICA_ONLY_HASH });
    expect(gql.status).toBe(200);
    expect(gql.body.data.block).toEqual({ found: true, block: { number: 7, hash: REPLICA_ONLY_HASH } });
    const rest = await api.get(`/api/explorer/block/${REPLICA_ONLY_HASH}?network=testnet`);
    expect(rest.status).toBe(200);
    expect(rest.body).toMatchObject({ found: true, block: { number: 7, hash: REPLICA_ONLY_HASH } });
  });

  it('serves a read with credentials from the primary (a client reads its own writes)', async () => {
    const me = await login(api, env.ca);
    const gql = await api.graphql(BLOCK, { id: REPLICA_ONLY_HASH }, { token: me.token });
    expect(gql.status).toBe(200);
    expect(gql.body.data.block).toEqual({ found: false, block: null });
    // The developer's own write (a project) is read back at once, from the primary.
    const created = await api.graphql(
      `mutation { createProject(input: {name: "replica-test"}) { id name } }`,
      undefined,
      {
        token: me.token,
      },
    );
    expect(created.body.errors).toBeUndefined();
    const projects = await api.graphql(
      'query($id: ID!) { developer(id: $id) { projects { id name } } }',
      { id: me.developerId },
      { token: me.token },
    );
    expect(projects.body.data.developer.projects).toEqual(expect.arrayContaining([created.body.data.createProject]));
    const onReplica = await sql(replica.url, `SELECT count(*)::int AS n FROM projects`);
    expect(onReplica[0].n).toBe(0);
  });

  it('never writes the replica: the primary holds the index, the replica only its own block', async () => {
    const rows = await sql(replica.url, `SELECT hash FROM explorer_blocks`);
    expect(rows).toEqual([{ hash: REPLICA_ONLY_HASH }]);
    const primary = await sql(env.databaseUrl, `SELECT count(*)::int AS n FROM explorer_blocks WHERE hash = $1`, [
      REPLICA_ONLY_HASH,
    ]);
    expect(primary[0].n).toBe(0);
  });

  it('reads the primary when the replica cannot be reached, and warns once', async () => {
    const name = new URL(replica.url).pathname.slice(1);
    await sql(env.databaseUrl, `DROP DATABASE ${name} WITH (FORCE)`);
    for (let i = 0; i < 3; i++) {
      const gql = await api.graphql(BLOCK, { id: REPLICA_ONLY_HASH });
      expect(gql.status).toBe(200);
      expect(gql.body.errors).toBeUndefined();
      expect(gql.body.data.block).toEqual({ found: false, block: null });
    }
    // A block the primary's index holds is still served to anonymous readers.
    const [indexed] = await sql<{ hash: string; number: string }>(
      env.databaseUrl,
      `SELECT hash, number FROM explorer_blocks WHERE network = 'testnet' ORDER BY number DESC LIMIT 1`,
    );
    const gql = await api.graphql(BLOCK, { id: indexed!.hash });
    expect(gql.body.data.block).toEqual({
      found: true,
      block: { number: Number(indexed!.number), hash: indexed!.hash },
    });
    const warnings = logLines(service.output()).filter(
      (l) => l.msg === 'DATABASE_READ_URL does not answer: reading the primary',
    );
    expect(warnings).toHaveLength(1);
    expect(service.output()).not.toContain(replica.url);
  });
});
