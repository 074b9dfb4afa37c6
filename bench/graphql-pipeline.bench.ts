// Cost of the GraphQL admission pipeline per request (src/schema/limits.ts): a typical gateway
// document when the pipeline has seen it (the usual case: only the cost is measured again), when it
// has not (parse, limits, cost, validation), and the refusal of each attack the limits stop.
// Run: npm run bench:pipeline
import 'reflect-metadata';
import { buildPrintableSchema } from '../src/schema/build-schema';
import { admitDocument, createGraphQLPipeline } from '../src/schema/limits';
import { machine } from './kit';

const QUERY =
  'mutation Q($id: ID!, $method: String!, $args: JSON) { queryContract(id: $id, method: $method, args: $args) { result } }';
const VARIABLES = { id: '00000000-0000-0000-0000-000000000000', method: 'balanceOf', args: ['0x00'] };
const EXPLORER =
  '{ liveBlocks(network: testnet, limit: 10) { network blocks { number hash timestamp transactionCount } } }';

function time(name: string, runs: number, fn: () => unknown): string {
  for (let i = 0; i < Math.min(50, runs); i++) fn();
  const started = process.hrtime.bigint();
  for (let i = 0; i < runs; i++) fn();
  const micros = Number(process.hrtime.bigint() - started) / 1000 / runs;
  return `| ${name} | ${micros < 100 ? micros.toFixed(1) : Math.round(micros)} |`;
}

async function main(): Promise<void> {
  const schema = await buildPrintableSchema();
  const pipeline = createGraphQLPipeline(schema);
  const aliases = Array.from({ length: 101 }, (_, i) => `a${i}: me { id }`).join(' ');
  const scans = Array.from(
    { length: 100 },
    (_, i) => `a${i}: address(address: "0x${'a'.repeat(40)}", scan: 5000) { found }`,
  ).join(' ');
  const rows = [
    time('gateway queryContract, seen before (cost only)', 20_000, () => pipeline.admit(QUERY, VARIABLES)),
    time('gateway queryContract, first time (parse, limits, cost, validation)', 5_000, () =>
      admitDocument(schema, QUERY, VARIABLES),
    ),
    time('explorer liveBlocks, seen before', 20_000, () => pipeline.admit(EXPLORER, {})),
    time('refusal: 352 KB `__typename` flood (token limit)', 50, () =>
      admitDocument(schema, `{ ${'__typename '.repeat(32_000)}}`, {}),
    ),
    time('refusal: 9,990 `__typename` (cost, before validation)', 50, () =>
      admitDocument(schema, `{ ${'__typename '.repeat(9_990)}}`, {}),
    ),
    time('refusal: 101 aliases', 2_000, () => admitDocument(schema, `{ ${aliases} }`, {})),
    time('refusal: 100 aliased `address(scan: 5000)` (blocks read)', 1_000, () =>
      admitDocument(schema, `{ ${scans} }`, {}),
    ),
  ];
  console.log(`\nMachine: ${machine()}\n`);
  console.log('| document | µs per request |\n|---|---|');
  for (const r of rows) console.log(r);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
