/* eslint-disable @typescript-eslint/no-explicit-any -- OpenAPI documents are asserted field by field */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createLogger } from '../src/logger';
import { createRestApi } from '../src/rest/rest-api';
import { buildPrintableSchema } from '../src/schema/build-schema';

// The served OpenAPI documents against third-party linters (Redocly, Spectral: zero errors) and
// against what the service really answers: statuses, unions, enums, bounds, headers, security.

const ROOT = path.resolve(__dirname, '..');
const bin = (name: string) => path.join(ROOT, 'node_modules/.bin', name);
const run = promisify(execFile);
const docs: Record<'devportal' | 'explorer', any> = { devportal: null, explorer: null };
let dir: string;

beforeAll(async () => {
  const schema = await buildPrintableSchema();
  dir = mkdtempSync(path.join(tmpdir(), 'openapi-lint-'));
  for (const area of ['devportal', 'explorer'] as const) {
    const api = createRestApi(area, {
      onUnexpected: () => undefined,
      schema,
      logger: createLogger('silent'),
      servers: ['http://localhost:4000'],
      makeContext: () => {
        throw new Error('no requests here');
      },
    });
    docs[area] = api.openApi;
    writeFileSync(path.join(dir, `${area}.json`), JSON.stringify(api.openApi));
  }
}, 60_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const files = () => ['devportal', 'explorer'].map((area) => path.join(dir, `${area}.json`));

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
  it('Redocly finds no error', async () => {
    const { code, out } = await lint('redocly', ['lint', '--format=summary', ...files()]);
    expect({ code, errors: out.split('\n').filter((l) => /^error/.test(l.trim())) }).toEqual({ code: 0, errors: [] });
  }, 120_000);

  it('Spectral (spectral:oas) finds no error', async () => {
    const { out } = await lint('spectral', ['lint', '--fail-severity=error', '-r', '.spectral.yaml', ...files()]);
    expect(out).toMatch(/\b0 errors\b|No results with a severity of 'error'/);
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
    expect(Object.keys(results.discriminator.mapping).sort()).toEqual(['address', 'block', 'contract', 'transaction']);
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
