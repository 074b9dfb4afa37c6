/* eslint-disable @typescript-eslint/no-explicit-any -- API responses are asserted field by field */
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startStack, type Stack } from './kit/stack';

// The documentation pages as a browser sees them, offline: the start page, GraphiQL on
// GET /graphql and Swagger UI on /docs, every asset served by the service itself. Headless
// Chromium loads them with every other host unresolvable and takes screenshots.

const CHROMIUM = '/usr/bin/chromium';
const run = promisify(execFile);
let stack: Stack;
let shots: string;

beforeAll(async () => {
  stack = await startStack();
  shots = mkdtempSync(path.join(tmpdir(), 'docs-pages-'));
}, 60_000);

afterAll(async () => {
  await stack?.stop();
  if (shots) rmSync(shots, { recursive: true, force: true });
});

const get = (p: string, headers: Record<string, string> = {}) => fetch(`${stack.url}${p}`, { headers });

describe('documentation pages over HTTP', () => {
  it('the start page links GraphiQL, the REST reference and both OpenAPI documents', async () => {
    const res = await get('/', { accept: 'text/html' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const body = await res.text();
    for (const link of ['/graphql', '/docs', '/api/devportal/openapi.json', '/api/explorer/openapi.json']) {
      expect(body).toContain(`href="${link}"`);
    }
    // Styled by its own sheet in the page (no CSP forbids it on the documents), light and dark.
    const style = /<style>([^<]*)<\/style>/.exec(body)?.[1] ?? '';
    expect(style).toContain('.cards{');
    expect(style).toContain('prefers-color-scheme:dark');
    expect(res.headers.get('content-security-policy')).toBeNull();
  });

  it('/docs/rpc shows the JSON-RPC door with cast, viem and ethers, linked from the start page', async () => {
    expect(await (await get('/', { accept: 'text/html' })).text()).toContain('href="/docs/rpc"');
    const res = await get('/docs/rpc', { accept: 'text/html' });
    expect(res.status).toBe(200);
    const body = await res.text();
    for (const text of ['cast block-number', 'createPublicClient', 'JsonRpcProvider', '/rpc/testnet/${KEY}']) {
      expect(body).toContain(text);
    }
    expect(body).not.toMatch(/<script/);
  });

  it('every page has the service’s icon; /favicon.ico and /favicon.svg answer it', async () => {
    for (const page of ['/', '/docs']) {
      expect(await (await get(page, { accept: 'text/html' })).text()).toContain('rel="icon" href="/favicon.svg"');
    }
    for (const icon of ['/favicon.svg', '/favicon.ico']) {
      const res = await get(icon);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
      expect(await res.text()).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    }
  });

  it("the documents carry helmet's page headers; JSON answers only what an API needs (SECURITY.md)", async () => {
    for (const [page, accept] of [
      ['/', 'text/html'],
      ['/docs', 'text/html'],
      ['/graphql', 'text/html'],
    ]) {
      const res = await get(page!, { accept: accept! });
      expect({ page, frame: res.headers.get('x-frame-options') }).toEqual({ page, frame: 'SAMEORIGIN' });
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      expect(res.headers.get('cross-origin-opener-policy')).toBe('same-origin');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    }
    const json = await get('/api/explorer/openapi.json');
    expect(json.status).toBe(200);
    expect(json.headers.get('x-content-type-options')).toBe('nosniff');
    expect(json.headers.get('x-frame-options')).toBe('DENY');
    for (const pageOnly of [
      'referrer-policy',
      'cross-origin-opener-policy',
      'origin-agent-cluster',
      'x-xss-protection',
    ]) {
      expect({ pageOnly, value: json.headers.get(pageOnly) }).toEqual({ pageOnly, value: null });
    }
  });

  it('GET /graphql from a browser is GraphiQL from the service, not Apollo Sandbox from a CDN', async () => {
    const res = await get('/graphql', { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' });
    expect(res.status).toBe(200);
    const body = await res.text();
    expect(body).toContain('/docs/assets/graphiql/graphiql.min.js');
    expect(body).not.toMatch(/https?:\/\//);
    expect(body).not.toMatch(/apollographql|sandbox|embeddable/i);
    for (const asset of [
      '/docs/assets/graphiql/graphiql.min.js',
      '/docs/assets/graphiql/graphiql.min.css',
      '/docs/assets/react/umd/react.production.min.js',
      '/docs/assets/react-dom/umd/react-dom.production.min.js',
      '/docs/assets/graphiql-start.js',
      '/docs/assets/swagger-ui/swagger-ui-bundle.js',
      '/docs/assets/swagger-start.js',
    ]) {
      expect({ asset, status: (await get(asset)).status }).toEqual({ asset, status: 200 });
    }
    expect((await get('/docs/assets/swagger-ui/no-such-file.js')).status).toBe(404);
  });

  it('GET /graphql with a query runs it for any client, with or without a content-type or preflight header', async () => {
    const q = `/graphql?query=${encodeURIComponent('{ __typename }')}`;
    // No credential comes from cookies, and GET runs queries only: nothing for a cross-site GET to abuse.
    const allowed: Array<Record<string, string>> = [
      {},
      { accept: 'application/graphql-response+json, application/json' },
      { 'apollo-require-preflight': 'true' },
      { 'content-type': 'application/json' },
    ];
    for (const headers of allowed) {
      const res = await get(q, headers);
      expect({ headers, status: res.status, body: await res.json() }).toEqual({
        headers,
        status: 200,
        body: { data: { __typename: 'Query' } },
      });
    }
    // A mutation over GET is refused, 405 with Allow: POST, and nothing runs.
    const mutation = await get(`/graphql?query=${encodeURIComponent('mutation { edsChallenge { nonce } }')}`);
    expect(mutation.status).toBe(405);
    expect(mutation.headers.get('allow')).toBe('POST');
    expect(((await mutation.json()) as { errors: Array<{ message: string }> }).errors[0]!.message).toMatch(
      /GET requests only support query operations/,
    );
  });

  it('/docs is Swagger UI over both OpenAPI documents, without the online validator', async () => {
    const res = await get('/docs');
    expect(res.status).toBe(200);
    const body = await res.text();
    expect(body).toContain('/docs/assets/swagger-ui/swagger-ui-bundle.js');
    expect(body).not.toMatch(/https?:\/\//);
    const start = await (await get('/docs/assets/swagger-start.js')).text();
    expect(start).toContain('/api/devportal/openapi.json');
    expect(start).toContain('/api/explorer/openapi.json');
    expect(start).toContain('validatorUrl: null');
  });
});

const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) {
  const message = `${CHROMIUM} is missing: the headless browser checks of the documentation pages do not run (apt-get install chromium)`;
  // In CI a missing browser is a failure; on a developer's machine it is a loud skip.
  if (process.env.CI) throw new Error(message);
  console.warn(`\n\n!!! SKIPPED: ${message} !!!\n\n`);
}

(haveChromium ? describe : describe.skip)('documentation pages in headless Chromium, offline', () => {
  /** Loads `url` in a fresh profile where no host but 127.0.0.1 resolves; returns the rendered DOM. */
  async function render(url: string, screenshot: string): Promise<string> {
    const profile = mkdtempSync(path.join(tmpdir(), 'chromium-profile-'));
    const flags = [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      `--user-data-dir=${profile}`,
      '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
      '--window-size=1280,900',
      '--virtual-time-budget=20000',
    ];
    try {
      await run(CHROMIUM, [...flags, `--screenshot=${screenshot}`, url], { timeout: 60_000 });
      const { stdout } = await run(CHROMIUM, [...flags, '--dump-dom', url], {
        timeout: 60_000,
        maxBuffer: 32 * 1024 * 1024,
      });
      return stdout;
    } finally {
      rmSync(profile, { recursive: true, force: true });
      // DOCS_SCREENSHOTS_DIR keeps the screenshots for a human to look at.
      const keep = process.env.DOCS_SCREENSHOTS_DIR;
      if (keep && existsSync(screenshot)) copyFileSync(screenshot, path.join(keep, path.basename(screenshot)));
    }
  }

  const isPng = (file: string) => readFileSync(file).subarray(1, 4).toString('latin1') === 'PNG';

  it('renders the JSON-RPC door’s page', async () => {
    const shot = path.join(shots, 'rpc.png');
    const dom = await render(`${stack.url}/docs/rpc`, shot);
    expect(dom).toContain('JSON-RPC door');
    expect(isPng(shot)).toBe(true);
  }, 120_000);

  it('renders the start page with its styles and icon', async () => {
    const shot = path.join(shots, 'start.png');
    const dom = await render(`${stack.url}/`, shot);
    expect(dom).toContain('class="cards"');
    expect(dom).toContain('href="/docs"');
    expect(isPng(shot)).toBe(true);
  }, 120_000);

  it('renders GraphiQL', async () => {
    const shot = path.join(shots, 'graphiql.png');
    const dom = await render(`${stack.url}/graphql`, shot);
    expect(dom).toContain('graphiql-container');
    expect(dom).not.toContain('Loading GraphiQL');
    expect(isPng(shot)).toBe(true);
  }, 120_000);

  it('renders Swagger UI with the developer portal document', async () => {
    const title = ((await (await get('/api/devportal/openapi.json')).json()) as any).info.title as string;
    const shot = path.join(shots, 'swagger.png');
    const dom = await render(`${stack.url}/docs`, shot);
    expect(dom).toContain('swagger-ui');
    expect(dom).toContain(title);
    expect(dom).toContain('opblock');
    expect(isPng(shot)).toBe(true);
  }, 120_000);
});
