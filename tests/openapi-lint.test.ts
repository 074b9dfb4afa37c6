/* eslint-disable @typescript-eslint/no-explicit-any -- OpenAPI documents are asserted field by field */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createLogger } from '../src/kernel/logger';
import { buildContractOpenApi, buildContractSwagger } from '../src/modules/contracts/spec';
import { createRestApi } from '../src/rest/rest-api';
import { AREA_BASE, REST_ROUTES } from '../src/rest/routes';
import { buildPrintableSchema } from '../src/schema/build-schema';

// The served OpenAPI documents (devportal, explorer, and a contract's openapi.json and swagger from a
// sample ABI) against third-party linters (Redocly, Spectral: zero errors and zero warnings) and
// against what the service really answers: statuses, unions, enums, bounds, headers, security.

const ROOT = path.resolve(__dirname, '..');
const bin = (name: string) => path.join(ROOT, 'node_modules/.bin', name);
const run = promisify(execFile);
const docs: Record<'devportal' | 'explorer' | 'contract' | 'contractSwagger', any> = {
  devportal: null,
  explorer: null,
  contract: null,
  contractSwagger: null,
};
let dir: string;
/** A deployed service publishes its public URL (PUBLIC_BASE_URL); localhost would be a lint warning. */
const SERVER = 'https://api.devportal.test';

/** A token's ABI: a view, a state-changing and a payable function, an event, a constructor. */
const SAMPLE_ABI = [
  { type: 'constructor', inputs: [{ name: 'supply', type: 'uint256' }], stateMutability: 'nonpayable' },
  {
    type: 'function',
    name: 'balanceOf',
    inputs: [{ name: 'who', type: 'address' }],
    outputs: [{ name: '', type: 'uint256' }],
    stateMutability: 'view',
  },
  {
    type: 'function',
    name: 'transfer',
    inputs: [
      { name: 'to', type: 'address' },
      { name: 'amount', type: 'uint256' },
    ],
    outputs: [{ name: '', type: 'bool' }],
    stateMutability: 'nonpayable',
  },
  { type: 'function', name: 'deposit', inputs: [], outputs: [], stateMutability: 'payable' },
  {
    type: 'event',
    name: 'Transfer',
    anonymous: false,
    inputs: [
      { name: 'from', type: 'address', indexed: true },
      { name: 'to', type: 'address', indexed: true },
      { name: 'value', type: 'uint256', indexed: false },
    ],
  },
];

beforeAll(async () => {
  const schema = await buildPrintableSchema();
  dir = mkdtempSync(path.join(tmpdir(), 'openapi-lint-'));
  for (const area of ['devportal', 'explorer'] as const) {
    const api = createRestApi(area, {
      onUnexpected: () => undefined,
      schema,
      logger: createLogger('silent'),
      servers: [SERVER],
      makeContext: () => {
        throw new Error('no requests here');
      },
    });
    docs[area] = api.openApi;
    writeFileSync(path.join(dir, `${area}.json`), JSON.stringify(api.openApi));
  }
  const contract = {
    id: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
    name: 'Token',
    network: 'testnet' as const,
    address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    abi: SAMPLE_ABI,
    servers: [SERVER],
  };
  docs.contract = buildContractOpenApi(contract);
  docs.contractSwagger = buildContractSwagger(contract);
  writeFileSync(path.join(dir, 'contract.json'), JSON.stringify(docs.contract));
  writeFileSync(path.join(dir, 'contract-swagger.json'), JSON.stringify(docs.contractSwagger));
}, 60_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const files = () =>
  ['devportal', 'explorer', 'contract', 'contract-swagger'].map((name) => path.join(dir, `${name}.json`));

async function lint(command: string, args: string[]): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await run(bin(command), args, {
      cwd: ROOT,
      maxBuffer: 16 * 1024 * 1024,
      // No telemetry, no update checks: the linters run offline.
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    });
    return { code: 0, out: stdout + stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? 1, out: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

describe('OpenAPI documents under third-party linters', () => {
  it('Redocly (recommended) finds no error and no warning', async () => {
    const { code, out } = await lint('redocly', ['lint', '--format=summary', ...files()]);
    const problems = out.split('\n').filter((l) => /^(error|warning)\b/.test(l.trim()));
    expect({ code, problems }).toEqual({ code: 0, problems: [] });
    expect(out).not.toMatch(/You have \d+ warnings?/);
  }, 120_000);

  it('Spectral (spectral:oas) finds no error and no warning', async () => {
    const { code, out } = await lint('spectral', ['lint', '--fail-severity=warn', '-r', '.spectral.yaml', ...files()]);
    expect({ code, out: out.trim() }).toEqual({
      code: 0,
      out: "No results with a severity of 'warn' or higher found!",
    });
  }, 120_000);
});

describe('OpenAPI documents describe what the service does', () => {
  const op = (area: 'devportal' | 'explorer', method: string, p: string) => docs[area].paths[p][method];

  it('declares every error status a route answers, with the error schema', () => {
    const invoke = op('devportal', 'post', '/api/devportal/contracts/{id}/invoke/{method}');
    for (const status of ['401', '403', '404', '409', '422', '429', '502', '503']) {
      expect(invoke.responses[status].content['application/json'].schema).toEqual({
        $ref: '#/components/schemas/Error',
      });
    }
    expect(invoke.responses['422'].description).toContain('EXECUTION_REVERTED');
    expect(op('devportal', 'post', '/api/devportal/faucet/drip').responses['429'].description).toContain(
      'FAUCET_LIMIT',
    );
    expect(op('devportal', 'post', '/api/devportal/contracts/compile').responses['422'].description).toContain(
      'COMPILATION_FAILED',
    );
    expect(op('devportal', 'post', '/api/devportal/auth/eds/login').responses['401']).toBeDefined();
    expect(op('explorer', 'get', '/api/explorer/network-status').responses['502']).toBeDefined();
    for (const path of ['test', 'rotate-secret', 'deliveries/{deliveryId}/redeliver']) {
      const webhookOp = op('devportal', 'post', `/api/devportal/webhooks/{webhookId}/${path}`);
      expect([path, Object.keys(webhookOp.responses)]).toEqual([
        path,
        expect.arrayContaining(['201', '401', '403', '404', '409']),
      ]);
      expect(webhookOp.tags).toHaveLength(1);
      expect(webhookOp.summary).toBeTruthy();
      expect(webhookOp.description).toBeTruthy();
    }
  });

  it('gives the gateway routes only ApiKeyAuth, and declares Idempotency-Key on invoke', () => {
    const invoke = op('devportal', 'post', '/api/devportal/contracts/{id}/invoke/{method}');
    expect(invoke.security).toEqual([{ ApiKeyAuth: [] }]);
    expect(op('devportal', 'post', '/api/devportal/contracts/{id}/query/{method}').security).toEqual([
      { ApiKeyAuth: [] },
    ]);
    expect(invoke.parameters.find((p: any) => p.name === 'Idempotency-Key')).toMatchObject({
      in: 'header',
      required: false,
    });
  });

  it('documents exactly the REST routes of the table: a root field without a route (readContract) has none', () => {
    for (const area of ['devportal', 'explorer'] as const) {
      const documented = Object.entries<any>(docs[area].paths).flatMap(([p, item]) =>
        Object.keys(item).map((m) => `${m.toUpperCase()} ${p}`),
      );
      const table = REST_ROUTES.filter((r) => r.area === area).map((r) => `${r.method} ${AREA_BASE[area]}${r.path}`);
      expect(documented.sort()).toEqual(table.sort());
    }
  });

  it('tags and describes every operation, with every tag defined and described', () => {
    for (const area of ['devportal', 'explorer'] as const) {
      const defined = new Map<string, string>(docs[area].tags.map((t: any) => [t.name, t.description]));
      for (const [p, item] of Object.entries<any>(docs[area].paths)) {
        for (const [method, o] of Object.entries<any>(item)) {
          expect({ at: `${method} ${p}`, tags: o.tags.length, described: o.description.length > 0 }).toEqual({
            at: `${method} ${p}`,
            tags: 1,
            described: true,
          });
          expect(defined.get(o.tags[0])).toEqual(expect.any(String));
        }
      }
    }
    expect(op('devportal', 'get', '/api/devportal/auth/me').tags).toEqual(['Authentication']);
    expect(op('devportal', 'post', '/api/devportal/contracts/{id}/invoke/{method}').tags).toEqual(['Gateway']);
    expect(op('explorer', 'get', '/api/explorer/tx/{hash}').tags).toEqual(['Transactions']);
    // GET routes take the GraphQL field's description.
    expect(op('devportal', 'get', '/api/devportal/contracts/{id}').description).toBe('A contract record (public).');
  });

  it('offers no credentials on the public explorer document', () => {
    expect(docs.explorer.components.securitySchemes).toBeUndefined();
    for (const item of Object.values<any>(docs.explorer.paths)) {
      for (const o of Object.values<any>(item)) expect(o.security).toEqual([]);
    }
    expect(Object.keys(docs.devportal.components.securitySchemes).sort()).toEqual(['ApiKeyAuth', 'BearerAuth']);
  });

  it('declares the 202 and the Prefer header exactly where Prefer: respond-async is honoured', () => {
    const honoured: string[] = [];
    for (const [p, item] of Object.entries<any>(docs.devportal.paths)) {
      for (const [method, o] of Object.entries<any>(item)) {
        const prefer = (o.parameters ?? []).find((x: any) => x.name === 'Prefer');
        expect({ at: `${method} ${p}`, prefer: prefer !== undefined }).toEqual({
          at: `${method} ${p}`,
          prefer: o.responses['202'] !== undefined,
        });
        if (!prefer) continue;
        honoured.push(`${method} ${p}`);
        expect(prefer).toMatchObject({ in: 'header', required: false, schema: { type: 'string' } });
        expect(o.responses['202'].content['application/json'].schema).toEqual({
          $ref: '#/components/schemas/AcceptedTransaction',
        });
      }
    }
    expect(honoured.sort()).toEqual([
      'post /api/devportal/contracts/deploy',
      'post /api/devportal/contracts/{id}/invoke/{method}',
    ]);
    expect(docs.devportal.components.schemas.AcceptedTransaction).toMatchObject({
      required: ['transactionId', 'status'],
      properties: { status: { enum: ['queued'] } },
    });
    // A contract's documents: every invoke (and no query) declares both.
    for (const [p, item] of Object.entries<any>(docs.contract.paths)) {
      const invoke = p.includes('/invoke/');
      expect(item.post.responses['202'] !== undefined).toBe(invoke);
      expect(docs.contractSwagger.paths[p].post.responses['202'] !== undefined).toBe(invoke);
      const names = (item.post.parameters ?? []).map((x: any) => x.$ref);
      expect(names.includes('#/components/parameters/Prefer')).toBe(invoke);
    }
    expect(
      docs.contract.paths[Object.keys(docs.contract.paths).find((p) => p.endsWith('/invoke/transfer'))!].post.responses[
        '202'
      ].content['application/json'].schema,
    ).toEqual({ $ref: '#/components/schemas/Accepted' });
    expect(docs.contract.components.parameters.Prefer).toMatchObject({ name: 'Prefer', in: 'header' });
    expect(docs.contractSwagger.parameters.Prefer).toMatchObject({ name: 'Prefer', in: 'header', type: 'string' });
  });

  it('makes request bodies optional where the service accepts none', () => {
    for (const p of [
      '/api/devportal/faucet/drip',
      '/api/devportal/contracts/{id}/query/{method}',
      '/api/devportal/contracts/{id}/invoke/{method}',
    ]) {
      expect({ p, required: op('devportal', 'post', p).requestBody?.required ?? false }).toEqual({
        p,
        required: false,
      });
    }
    expect(op('devportal', 'post', '/api/devportal/projects').requestBody.required).toBe(true);
  });

  it('tells search results apart by a discriminator on type', () => {
    const results = docs.explorer.components.schemas.SearchResults.properties.results.items;
    expect(results.discriminator.propertyName).toBe('type');
    expect(Object.keys(results.discriminator.mapping).sort()).toEqual([
      'address',
      'block',
      'contract',
      'token',
      'transaction',
    ]);
    expect(docs.explorer.components.schemas.BlockSearchResult.properties.type.enum).toEqual(['block']);
  });

  it('states closed sets as enums and the bounds and defaults of limit and days', () => {
    const s = docs.devportal.components.schemas;
    expect(s.Contract.properties.status.enum).toContain('deployed');
    expect(s.ApiKeyInfo.properties.status.enum).toEqual(['active', 'revoked']);
    expect(s.WalletHistoryItem.properties.kind.enum).toContain('transfer-in');
    expect(s.GatewayInvokeResult.properties.status.enum).toContain('pending');
    const history = op('devportal', 'get', '/api/devportal/developers/{id}/wallet-history');
    expect(history.parameters.find((p: any) => p.name === 'limit').schema).toMatchObject({
      minimum: 1,
      maximum: 100,
      default: 25,
    });
    const analytics = op('devportal', 'get', '/api/devportal/developers/{id}/analytics');
    expect(analytics.parameters.find((p: any) => p.name === 'days').schema).toMatchObject({ minimum: 1, maximum: 90 });
  });

  it('keeps no sibling beside a $ref, and no nullable without a type', () => {
    const problems: string[] = [];
    const walk = (node: unknown, where: string) => {
      if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${where}[${i}]`));
      if (typeof node !== 'object' || node === null) return;
      const o = node as Record<string, unknown>;
      if (typeof o.$ref === 'string' && Object.keys(o).length > 1) problems.push(`${where}: $ref with siblings`);
      if (o.nullable === true && o.type === undefined) problems.push(`${where}: nullable without type`);
      for (const [k, v] of Object.entries(o)) walk(v, `${where}.${k}`);
    };
    walk(docs.devportal, 'devportal');
    walk(docs.explorer, 'explorer');
    expect(problems).toEqual([]);
  });
});
