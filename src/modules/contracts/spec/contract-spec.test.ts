import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import SwaggerParser from '@apidevtools/swagger-parser';
import { FunctionFragment } from 'ethers';
import createClient from 'openapi-fetch';
import { compileCached } from '../../../../tests/kit/solc-cache';
import { findMethod, listMethods } from '../../../chain/abi';
import { buildContractOpenApi, buildContractSwagger, contractOperations, type ContractSpecInput } from '.';

const ROOT = path.resolve(__dirname, '../../../..');
const ID = '7c9e6679-7425-40de-944b-e07fc1f90ae7';

const SOURCES: Record<string, string> = {
  'Token.sol': `// SPDX-License-Identifier: MIT
pragma solidity 0.8.20;
import "@openzeppelin/contracts/token/ERC20/ERC20.sol";
contract Token is ERC20 {
    constructor() ERC20("Token", "TKN") { _mint(msg.sender, 1e24); }
}`,
  'Overloads.sol': `// SPDX-License-Identifier: MIT
pragma solidity 0.8.20;
contract Overloads {
    event Sent(address to, uint256 amount);
    mapping(address => uint256) public balances;
    function transfer(address to, uint256 amount) external returns (bool) { emit Sent(to, amount); return true; }
    function transfer(address to, uint256 amount, bytes calldata) external returns (bool) { emit Sent(to, amount); return true; }
    function transfer(address[] calldata to, uint256 amount) external returns (bool) { emit Sent(to[0], amount); return true; }
    function peek(uint256 x) external pure returns (uint256) { return x; }
    function peek(uint256[] calldata xs) external pure returns (uint256) { return xs.length; }
    function transfer_address_uint256() external {}
}`,
  'Orders.sol': `// SPDX-License-Identifier: MIT
pragma solidity 0.8.20;
contract Orders {
    struct Leg { bytes32 tag; uint16[] hops; }
    struct Order { address to; uint256 amount; Leg[] legs; int64 deadline; }
    Order[] internal orders;
    function place(Order calldata order, address[2] calldata pair, uint8[3][] calldata grid) external returns (uint256 id) {
        orders.push(order); return orders.length + pair.length + grid.length;
    }
    function get(uint256 id) external view returns (Order memory) { return orders[id]; }
    function summary() external view returns (uint256 count, Order memory last, bytes4[2] memory tags) {
        return (orders.length, orders[orders.length - 1], tags);
    }
    function pair() external pure returns (address, uint256) { return (address(0), 1); }
    function nothing() external view {}
    function flags(bool[] calldata b, string calldata s, bytes calldata d) external pure returns (bool) {
        return b.length + bytes(s).length + d.length > 0;
    }
}`,
  'Vault.sol': `// SPDX-License-Identifier: MIT
pragma solidity 0.8.20;
contract Vault {
    event Deposited(address from, uint256 amount);
    address public owner;
    constructor(address owner_) payable { owner = owner_; }
    receive() external payable {}
    fallback() external payable {}
    function deposit() external payable { emit Deposited(msg.sender, msg.value); }
    function depositFor(address who) external payable returns (uint256) { emit Deposited(who, msg.value); return msg.value; }
    function withdraw(uint256 amount) external { payable(msg.sender).transfer(amount); }
    function balance() external view returns (uint256) { return address(this).balance; }
}`,
};

/** ABIs of the fixture contracts, compiled as the portal compiles (solc 0.8.20, paris, optimizer 200). */
function compileFixtures(): Record<string, unknown[]> {
  const input = {
    language: 'Solidity',
    sources: Object.fromEntries(Object.entries(SOURCES).map(([file, content]) => [file, { content }])),
    settings: {
      evmVersion: 'paris',
      optimizer: { enabled: true, runs: 200 },
      outputSelection: { '*': { '*': ['abi'] } },
    },
  };
  const output = JSON.parse(compileCached(JSON.stringify(input))) as {
    errors?: { severity: string; formattedMessage: string }[];
    contracts: Record<string, Record<string, { abi: unknown[] }>>;
  };
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  return Object.fromEntries(
    Object.keys(SOURCES).map((f) => [f.replace('.sol', ''), output.contracts[f][f.replace('.sol', '')].abi]),
  );
}

/** A contract record as the portal would hand it to the builders. */
function inputOf(name: string, abi: unknown[]): ContractSpecInput {
  return {
    id: ID,
    name,
    network: 'testnet',
    address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    abi,
    servers: ['https://api.example.org', 'https://dev.example.org/portal/'],
  };
}

interface Doc {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema>; securitySchemes: Record<string, unknown> };
}
interface Operation {
  operationId: string;
  security: unknown[];
  parameters?: { in?: string; schema?: { $ref: string } }[];
  requestBody?: { required: boolean; content: Record<string, { schema: { $ref: string } }> };
}
interface Schema {
  properties?: Record<string, Schema>;
  required?: string[];
  [k: string]: unknown;
}

/** swagger-parser's document type, without importing its transitive `openapi-types` package. */
type ApiDocument = Exclude<Parameters<typeof SwaggerParser.validate>[1], string>;

/** Validates a copy (swagger-parser dereferences in place) against the OpenAPI 3.0 or Swagger 2.0 schema. */
function validate(doc: object) {
  return SwaggerParser.validate(structuredClone(doc) as ApiDocument);
}

/** The component a `$ref` of the document points to. */
function resolve(doc: Doc, ref: string): Schema {
  return doc.components.schemas[ref.replace('#/components/schemas/', '')];
}

const run = promisify(execFile);
let abis: Record<string, unknown[]>;
/** Scratch directory with node_modules linked in, for generated files and the type-check. */
let dir: string;

beforeAll(() => {
  abis = compileFixtures();
  dir = mkdtempSync(path.join(tmpdir(), 'contract-spec-'));
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * TypeScript generated from `doc` by the openapi-typescript CLI. A child process because openapi-typescript pulls
 * in ESM-only dependencies that ts-jest's CommonJS cannot require without --experimental-vm-modules.
 */
async function generateTypes(doc: object, name: string): Promise<string> {
  const json = path.join(dir, `${name}.json`);
  const out = path.join(dir, `${name}.ts`);
  writeFileSync(json, JSON.stringify(doc));
  await run(path.join(ROOT, 'node_modules/.bin/node'), [
    path.join(ROOT, 'node_modules/openapi-typescript/bin/cli.js'),
    json,
    '--output',
    out,
    '--silent',
  ]);
  return readFileSync(out, 'utf8');
}

describe.each(['Token', 'Overloads', 'Orders', 'Vault'])('contract spec of %s', (name) => {
  let input: ContractSpecInput;
  let openapi: Doc;
  let swagger: { paths: Record<string, Record<string, { operationId: string; security: unknown[] }>> };

  beforeAll(() => {
    input = inputOf(name, abis[name]);
    openapi = buildContractOpenApi(input) as Doc;
    swagger = buildContractSwagger(input) as typeof swagger;
  });

  it('validates as OpenAPI 3.0.3', async () => {
    expect(openapi).toMatchObject({ openapi: '3.0.3', info: { version: '1.0.0', title: `${name} contract API` } });
    await expect(validate(openapi)).resolves.toBeDefined();
  });

  it('validates as Swagger 2.0', async () => {
    expect(swagger).toMatchObject({ swagger: '2.0', host: 'api.example.org', basePath: '/', schemes: ['https'] });
    await expect(validate(swagger)).resolves.toBeDefined();
  });

  it('generates TypeScript with openapi-typescript, mentioning every operation', async () => {
    const ts = await generateTypes(openapi, name);
    for (const op of contractOperations(input)) {
      expect(ts).toContain(op.operationId);
      expect(ts).toContain(`"${op.path}"`);
    }
  });

  it('has one POST per ABI function, view/pure under /query, unique operationIds, ApiKeyAuth everywhere', () => {
    const methods = listMethods(abis[name]);
    const entries = Object.entries(openapi.paths);
    expect(entries).toHaveLength(methods.length);
    const ids = new Set<string>();
    for (const [p, item] of entries) {
      expect(Object.keys(item)).toEqual(['post']);
      const op = item.post;
      expect(op.security).toEqual([{ ApiKeyAuth: [] }]);
      expect(op.operationId).toMatch(/^(query|invoke)_[A-Za-z0-9_]+$/);
      ids.add(op.operationId);
      expect(p.startsWith(`/api/devportal/contracts/${ID}/`)).toBe(true);
      expect(p).not.toMatch(/[{}]/);
      const method = findMethod(abis[name], decodeURIComponent(p.split('/').pop()!));
      expect(p).toContain(method.readOnly ? '/query/' : '/invoke/');
      expect(op.operationId.startsWith(method.readOnly ? 'query_' : 'invoke_')).toBe(true);
      const body = resolve(openapi, op.requestBody!.content['application/json'].schema.$ref);
      expect(Object.hasOwn(body.properties!, 'value')).toBe(method.payable);
      expect(Object.hasOwn(body.properties!, 'gasLimit')).toBe(!method.readOnly);
      expect(body.required ?? []).toEqual(method.fragment.inputs.length > 0 ? ['args'] : []);
      expect(op.requestBody!.required).toBe(method.fragment.inputs.length > 0);
    }
    expect(ids.size).toBe(methods.length);
    expect(openapi.components.securitySchemes.ApiKeyAuth).toEqual({ type: 'apiKey', in: 'header', name: 'x-api-key' });
  });

  it('gives the Swagger document the same operations', () => {
    const ops = (d: { paths: Record<string, Record<string, { operationId: string; security: unknown[] }>> }) =>
      Object.entries(d.paths).map(([p, item]) => [p, Object.keys(item), item.post.operationId, item.post.security]);
    expect(ops(swagger)).toEqual(ops(openapi));
    expect(swagger).toMatchObject({
      securityDefinitions: { ApiKeyAuth: { type: 'apiKey', in: 'header', name: 'x-api-key' } },
    });
  });
});

/** Runs a linter CLI of node_modules/.bin; '' when it passes, its output when it does not. */
async function lint(command: string, args: string[]): Promise<string> {
  try {
    await run(path.join(ROOT, 'node_modules/.bin', command), args, {
      cwd: ROOT,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    });
    return '';
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    return `${e.stdout ?? ''}${e.stderr ?? ''}`;
  }
}

// One run of each linter over the four documents (each CLI costs seconds of CPU to start).
it('passes Redocly and Spectral (spectral:oas) without an error, for every fixture', async () => {
  const files = ['Token', 'Overloads', 'Orders', 'Vault'].map((name) => {
    const file = path.join(dir, `lint-${name}.json`);
    writeFileSync(file, JSON.stringify(buildContractOpenApi(inputOf(name, abis[name]))));
    return file;
  });
  expect(await lint('redocly', ['lint', '--format=summary', ...files])).toBe('');
  expect(await lint('spectral', ['lint', '--fail-severity=error', '-r', '.spectral.yaml', ...files])).toBe('');
}, 120_000);

describe('document details', () => {
  it('lists the servers without trailing slashes and derives the Swagger base path from the first', () => {
    const input = {
      ...inputOf('Vault', abis.Vault),
      servers: ['http://localhost:4000/gw/', 'https://api.example.org'],
    };
    expect(buildContractOpenApi(input)).toMatchObject({
      servers: [{ url: 'http://localhost:4000/gw' }, { url: 'https://api.example.org' }],
    });
    expect(buildContractSwagger(input)).toMatchObject({ host: 'localhost:4000', basePath: '/gw', schemes: ['http'] });
    const bare = buildContractSwagger({ ...input, servers: [] });
    expect(bare).not.toHaveProperty('host');
  });

  it('describes network and address, or that it is not deployed', () => {
    const info = (buildContractOpenApi(inputOf('Vault', abis.Vault)) as { info: { description: string } }).info;
    expect(info.description).toContain('testnet (chain id 17991)');
    expect(info.description).toContain('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed');
    const undeployed = buildContractOpenApi({ ...inputOf('Vault', abis.Vault), network: 'mainnet', address: null });
    expect((undeployed as { info: { description: string } }).info.description).toMatch(
      /mainnet \(chain id 1991\), not deployed yet/,
    );
  });

  it('addresses overloads by their URL-encoded signature with disambiguated operationIds', () => {
    const ops = contractOperations(inputOf('Overloads', abis.Overloads));
    const rows = ops.map((o) => [o.path.split('/').slice(-2).join('/'), o.operationId]);
    expect(rows.sort()).toEqual(
      [
        ['query/balances', 'query_balances'],
        ['invoke/transfer%28address%2Cuint256%29', 'invoke_transfer_address_uint256'],
        ['invoke/transfer%28address%2Cuint256%2Cbytes%29', 'invoke_transfer_address_uint256_bytes'],
        ['invoke/transfer%28address%5B%5D%2Cuint256%29', 'invoke_transfer_address_arr_uint256'],
        ['query/peek%28uint256%29', 'query_peek_uint256'],
        ['query/peek%28uint256%5B%5D%29', 'query_peek_uint256_arr'],
        ['invoke/transfer_address_uint256', 'invoke_transfer_address_uint256_2'],
      ].sort(),
    );
  });

  it('keeps operationIds of overloads distinct for arrays, tuples and their nesting, and makes them identifiers', () => {
    const abi = [
      'function f(uint256)',
      'function f(uint256[])',
      'function f(uint256[2])',
      'function f(tuple(uint256))',
      'function f(tuple(uint256), address)',
      'function f(tuple(uint256, address))',
      'function f()',
      'function $pay$()',
    ].map((f) => JSON.parse(FunctionFragment.from(f).format('json')) as unknown);
    const ids = contractOperations(inputOf('F', abi)).map((o) => o.operationId);
    expect(ids).toEqual([
      'invoke_f_uint256',
      'invoke_f_uint256_arr',
      'invoke_f_uint256_arr2',
      'invoke_f_tuple_uint256_end',
      'invoke_f_tuple_uint256_end_address',
      'invoke_f_tuple_uint256_address_end',
      'invoke_f_noargs',
      'invoke_pay',
    ]);
    expect(contractOperations(inputOf('F', abi)).pop()!.path).toMatch(/\/invoke\/%24pay%24$/);
  });

  it('falls back to the common JSON type for mixed positional items in Swagger 2.0, which has no anyOf', () => {
    const abi = ['function a(address, uint256, bytes32)', 'function b(address, bool)'].map(
      (f) => JSON.parse(FunctionFragment.from(f).format('json')) as unknown,
    );
    const defs = (buildContractSwagger(inputOf('M', abi)) as { definitions: Record<string, Schema> }).definitions;
    expect(defs.invoke_a_request.properties!.args.items).toMatchObject({ type: 'string' });
    expect(defs.invoke_b_request.properties!.args.items).not.toHaveProperty('type');
    expect(defs.invoke_b_request.properties!.args).toMatchObject({ minItems: 2, maxItems: 2 });
  });

  it('types request and response bodies from the ABI', () => {
    const doc = buildContractOpenApi(inputOf('Orders', abis.Orders)) as Doc;
    const schemas = doc.components.schemas;
    const place = schemas.invoke_place_request.properties!.args;
    expect(place).toMatchObject({ type: 'array', minItems: 3, maxItems: 3 });
    expect(place.description).toBe(
      'Positional arguments of place((address,uint256,(bytes32,uint16[])[],int64),address[2],uint8[3][]): ' +
        '[0] order: (address,uint256,(bytes32,uint16[])[],int64); [1] pair: address[2]; [2] grid: uint8[3][]',
    );
    const [order, pair, grid] = (place.items as { anyOf: Schema[] }).anyOf;
    expect(order).toMatchObject({
      type: 'object',
      required: ['to', 'amount', 'legs', 'deadline'],
      additionalProperties: false,
      properties: {
        to: { type: 'string', pattern: '^0x[0-9a-fA-F]{40}$' },
        amount: { type: 'string', pattern: '^[0-9]+$|^0x[0-9a-fA-F]+$' },
        deadline: { type: 'string', pattern: '^-?[0-9]+$|^0x[0-9a-fA-F]+$' },
        legs: {
          type: 'array',
          items: {
            type: 'object',
            required: ['tag', 'hops'],
            properties: { tag: { pattern: '^0x[0-9a-fA-F]{64}$' }, hops: { type: 'array', items: { type: 'string' } } },
          },
        },
      },
    });
    expect(pair).toMatchObject({ type: 'array', minItems: 2, maxItems: 2, items: { pattern: '^0x[0-9a-fA-F]{40}$' } });
    expect(grid).toMatchObject({ type: 'array', items: { type: 'array', minItems: 3, maxItems: 3 } });
    expect(grid).not.toHaveProperty('minItems');

    expect(schemas.query_flags_request.properties!.args.items).toEqual({
      anyOf: [
        expect.objectContaining({ type: 'array', items: { type: 'boolean', description: 'bool' } }),
        { type: 'string', description: 'string' },
        expect.objectContaining({ type: 'string', pattern: '^0x([0-9a-fA-F]{2})*$' }),
      ],
    });

    // Outputs: one → the value, several named → object, unnamed → positional array, none → null.
    expect(schemas.invoke_place_response.properties!.result).toBeUndefined();
    expect(schemas.query_get_response.properties!.result).toMatchObject({
      type: 'object',
      properties: { amount: { pattern: '^[0-9]+$' }, deadline: { pattern: '^-?[0-9]+$' } },
    });
    expect(schemas.query_summary_response.properties!.result).toMatchObject({
      type: 'object',
      required: ['count', 'last', 'tags'],
      properties: { tags: { type: 'array', minItems: 2, maxItems: 2, items: { pattern: '^0x[0-9a-f]{8}$' } } },
    });
    expect(schemas.query_pair_response.properties!.result).toMatchObject({ type: 'array', minItems: 2, maxItems: 2 });
    expect(schemas.query_nothing_response.properties!.result).toMatchObject({ nullable: true, enum: [null] });
  });

  it('types the invoke response and the error responses', () => {
    const doc = buildContractOpenApi(inputOf('Vault', abis.Vault)) as Doc & {
      components: { responses: Record<string, unknown> };
    };
    expect(doc.components.schemas.invoke_deposit_response).toMatchObject({
      required: ['txHash', 'blockNumber', 'gasUsed', 'status'],
      properties: {
        blockNumber: { type: 'integer', nullable: true },
        gasUsed: { type: 'string', nullable: true },
        status: { enum: ['success', 'reverted', 'pending'] },
      },
    });
    const deposit = doc.paths[`/api/devportal/contracts/${ID}/invoke/deposit`].post as Operation & {
      responses: Record<string, unknown>;
    };
    expect(Object.keys(deposit.responses).sort()).toEqual(
      ['201', '202', '400', '401', '403', '404', '409', '413', '415', '422', '429', '500', '502', '503'].sort(),
    );
    expect(deposit.requestBody!.required).toBe(false);
    expect(deposit.parameters).toEqual([
      { $ref: '#/components/parameters/IdempotencyKey' },
      { $ref: '#/components/parameters/Prefer' },
    ]);
    expect(doc.components.schemas.Accepted).toMatchObject({
      required: ['transactionId', 'status'],
      properties: { status: { enum: ['queued'] } },
    });
    expect(doc.components.schemas.Error).toMatchObject({ required: ['error'] });
  });
});

/** Any gateway operation, loosely typed. */
type WirePaths = Record<
  string,
  {
    post: {
      parameters: { query?: never; header?: never; path?: never; cookie?: never };
      requestBody: { content: { 'application/json': { args: unknown[] } } };
      responses: { 201: { headers: Record<string, unknown>; content: { 'application/json': unknown } } };
    };
  }
>;

describe('generated client', () => {
  let server: Server;
  let baseUrl: string;
  const seen: { url: string; key: string | undefined; body: string }[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push({ url: req.url!, key: req.headers['x-api-key'] as string | undefined, body });
        res.writeHead(201, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ txHash: '0x' + '0'.repeat(64), blockNumber: 1, gasUsed: '21000', status: 'success' }));
      });
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((ok) => server.close(ok));
  });

  it('type-checks a typed openapi-fetch client against the openapi-typescript output', async () => {
    await generateTypes(buildContractOpenApi(inputOf('Orders', abis.Orders)), 'api');
    const base = `/api/devportal/contracts/${ID}`;
    writeFileSync(
      path.join(dir, 'client.ts'),
      `import createClient from 'openapi-fetch';
import type { components, paths } from './api';
const client = createClient<paths>({ baseUrl: 'http://localhost', headers: { 'x-api-key': 'svc_x' } });
export async function main(): Promise<void> {
  const leg = { tag: '0x' + '00'.repeat(32), hops: ['1'] };
  const order = { to: '0x0000000000000000000000000000000000000000', amount: '1', legs: [leg], deadline: '-1' };
  const placed = await client.POST('${base}/invoke/place', { body: { args: [order, ['0x00', '0x00'], [['1', '2', '3']]], gasLimit: '100000' } });
  const status: 'success' | 'reverted' | 'pending' | 'queued' | undefined = placed.data?.status;
  const transactionId: string | undefined = placed.data?.transactionId;
  // A 202 (Prefer: respond-async) holds only the record to follow: told apart by its fields.
  const block: number | null | undefined =
    placed.data && 'blockNumber' in placed.data ? placed.data.blockNumber : undefined;
  const got = await client.POST('${base}/query/get', { body: { args: ['0'] } });
  const amount: string | undefined = got.data?.result.amount;
  const summary = await client.POST('${base}/query/summary', {});
  const count: string | undefined = summary.data?.result.count;
  await client.POST('${base}/query/nothing', {});
  // openapi-fetch drops null-only properties from its data type; the generated type itself is exact.
  const none: components['schemas']['query_nothing_response'] = { result: null };
  const code: string | undefined = got.error?.error.code;
  // @ts-expect-error bool arguments are JSON booleans, not numbers
  await client.POST('${base}/query/flags', { body: { args: [[1], 's', '0x'] } });
  // @ts-expect-error args is required when the function has inputs
  await client.POST('${base}/query/get', { body: {} });
  console.log(status, transactionId, block, amount, count, none, code);
}
`,
    );
    const tsc = path.join(ROOT, 'node_modules/.bin/tsc');
    const flags = ['--noEmit', '--strict', '--skipLibCheck', '--target', 'es2022', '--module', 'esnext'];
    const result = await run(tsc, [...flags, '--moduleResolution', 'bundler', '--lib', 'es2022,dom', 'client.ts'], {
      cwd: dir,
    }).catch((e: { stdout: string }) => ({ stdout: e.stdout, failed: true }));
    expect(result.stdout).toBe('');
  }, 120_000);

  it('reaches an overloaded function through its percent-encoded path, which the server decodes to the signature', async () => {
    const doc = buildContractOpenApi({ ...inputOf('Overloads', abis.Overloads), servers: [baseUrl] }) as Doc & {
      servers: { url: string }[];
    };
    const overload = Object.keys(doc.paths).find((p) => p.endsWith('/invoke/transfer%28address%2Cuint256%2Cbytes%29'))!;
    // The generated types are exercised by the tsc test; here only the wire behaviour matters.
    const client = createClient<WirePaths>({ baseUrl: doc.servers[0].url, headers: { 'x-api-key': 'svc_test' } });
    const args = ['0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', '1', '0x'];
    const { data, response } = await client.POST(overload, { body: { args } });
    expect(response.status).toBe(201);
    expect(data).toMatchObject({ status: 'success' });
    const last = seen[seen.length - 1];
    expect(last.url).toBe(overload);
    expect(last.key).toBe('svc_test');
    expect(JSON.parse(last.body)).toEqual({ args });
    // What an HTTP framework hands the gateway as the decoded `{method}` path parameter.
    const method = decodeURIComponent(last.url.split('/').pop()!);
    expect(findMethod(abis.Overloads, method).signature).toBe('transfer(address,uint256,bytes)');
  });
});
