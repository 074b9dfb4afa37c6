import path from 'node:path';
import express from 'express';
import { pageHeaders } from './with-hygiene-headers';

/**
 * The browsable documentation: a start page, GraphiQL on GET /graphql for browsers and Swagger UI
 * on /docs. Every script and style comes from this service's own npm packages (no CDN, no
 * telemetry, works offline), and no page holds an inline script.
 */

/** Static files of an installed package, by the directory of its package.json. */
const packageDir = (name: string) => path.dirname(require.resolve(`${name}/package.json`));

const OPENAPI_DOCUMENTS = [
  { name: 'Developer portal', url: '/api/devportal/openapi.json' },
  { name: 'Explorer', url: '/api/explorer/openapi.json' },
];

const page = (title: string, head: string, body: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
${head}
</head>
<body>
${body}
</body>
</html>
`;

/** The service's mark: a hexagon of four validators, as an SVG favicon (served at /favicon.svg and /favicon.ico). */
const FAVICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64">
<path d="M32 3 57 17.5v29L32 61 7 46.5v-29z" fill="#1f3a8a"/>
<g fill="#93c5fd"><circle cx="32" cy="18" r="6"/><circle cx="46" cy="32" r="6"/><circle cx="32" cy="46" r="6"/><circle cx="18" cy="32" r="6"/></g>
<path d="M32 18 46 32 32 46 18 32z" fill="none" stroke="#dbeafe" stroke-width="3"/>
</svg>
`;

const ICON_LINK = '<link rel="icon" href="/favicon.svg" type="image/svg+xml">';

const START_STYLE = `<style>
:root{color-scheme:light dark;--fg:#0f172a;--muted:#475569;--bg:#f8fafc;--card:#fff;--line:#e2e8f0;--accent:#1d4ed8}
@media (prefers-color-scheme:dark){:root{--fg:#e2e8f0;--muted:#94a3b8;--bg:#0b1120;--card:#111a2e;--line:#1e293b;--accent:#93c5fd}}
*{box-sizing:border-box}
body{margin:0;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;line-height:1.55;color:var(--fg);background:var(--bg)}
header{padding:2.5rem 1rem 1.5rem;border-bottom:1px solid var(--line)}
header div,main{max-width:60rem;margin:0 auto}
header h1{display:flex;align-items:center;gap:.75rem;margin:0 0 .5rem;font-size:1.6rem}
header h1 img{width:2.25rem;height:2.25rem}
header p{margin:0;color:var(--muted)}
main{padding:1.5rem 1rem 3rem}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(17rem,1fr));gap:1rem}
section{background:var(--card);border:1px solid var(--line);border-radius:.75rem;padding:1.1rem 1.25rem}
section h2{margin:0 0 .5rem;font-size:1.05rem}
section ul{margin:0;padding-left:1.1rem}
a{color:var(--accent);text-decoration:none}a:hover{text-decoration:underline}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.85em}
pre{margin:1rem 0 0;padding:1rem;overflow-x:auto;background:var(--card);border:1px solid var(--line);border-radius:.75rem}
</style>`;

const START_PAGE = page(
  'QBFT developer portal',
  `${ICON_LINK}\n${START_STYLE}`,
  `<header><div>
<h1><img src="/favicon.svg" alt="">QBFT developer portal, contract gateway and explorer</h1>
<p>Deploy and call contracts with API keys, follow blocks and events live, and read the chain, on testnet (chain id 17991) and mainnet (1991).</p>
</div></header>
<main>
<div class="cards">
<section><h2>GraphQL</h2><ul>
<li><a href="/graphql">GraphiQL</a>: the GraphQL API at <code>/graphql</code> (HTTP, and WebSocket for subscriptions)</li>
</ul></section>
<section><h2>REST</h2><ul>
<li><a href="/docs">REST reference</a> (Swagger UI) of the developer portal and the explorer</li>
${OPENAPI_DOCUMENTS.map((d) => `<li><a href="${d.url}">${d.url}</a>: OpenAPI document of the ${d.name.toLowerCase()}</li>`).join('\n')}
</ul></section>
<section><h2>JSON-RPC</h2><ul>
<li><a href="/docs/rpc">JSON-RPC door</a>: <code>/rpc/testnet/&lt;API key&gt;</code> and <code>/rpc/mainnet/&lt;API key&gt;</code>, Ethereum JSON-RPC for viem, ethers, hardhat and foundry, over HTTP and WebSocket</li>
</ul></section>
<section><h2>Operations</h2><ul>
<li><a href="/readyz">/readyz</a>: readiness, with each network's RPC health</li>
<li><a href="/healthz">/healthz</a>: liveness</li>
</ul></section>
</div>
<pre>TOKEN=$(npm run -s dev:login -- --name "Ada Lovelace" --quiet)
curl -s http://localhost:4000/api/devportal/auth/me -H "Authorization: Bearer $TOKEN"</pre>
</main>`,
);

const esc = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The JSON-RPC door's guide (docs/api.md, "JSON-RPC door"), with the clients teams use. */
const RPC_PAGE = page(
  'JSON-RPC door · QBFT developer portal',
  `${ICON_LINK}\n${START_STYLE}`,
  `<header><div>
<h1><img src="/favicon.svg" alt="">JSON-RPC door</h1>
<p>The tools every Ethereum team uses reach the networks with an API key, as they would reach Infura or Alchemy: the same keys, limits and analytics as the gateway.</p>
</div></header>
<main>
<div class="cards">
<section><h2>Endpoints</h2><ul>
<li><code>POST /rpc/testnet</code>, <code>POST /rpc/mainnet</code> with <code>x-api-key</code> or <code>Authorization: Bearer svc_…</code></li>
<li><code>/rpc/{network}/{apiKey}</code> for tools that cannot set headers (the key is never logged)</li>
<li>The same paths upgrade to WebSocket, with <code>eth_subscribe</code> <code>newHeads</code> and <code>logs</code> (and <code>fromBlock</code> to resume)</li>
</ul></section>
<section><h2>Keys and limits</h2><ul>
<li>Scope <code>read</code>: chain, block, transaction, receipt, log, state and fee reads, <code>eth_call</code>, <code>eth_estimateGas</code></li>
<li>Scope <code>write</code> adds <code>eth_sendRawTransaction</code>; on mainnet only to your deployed portal contracts</li>
<li>Batches of 100 calls; <code>eth_getLogs</code> over 5,000 blocks or 10,000 logs is -32005</li>
</ul></section>
</div>
<pre>${esc(`# foundry
cast block-number --rpc-url http://localhost:4000/rpc/testnet/$KEY
cast call $ADDRESS 'count()(uint256)' --rpc-url http://localhost:4000/rpc/testnet/$KEY`)}</pre>
<pre>${esc(`// viem
import { createPublicClient, http, webSocket } from 'viem';
const client = createPublicClient({ transport: http(\`http://localhost:4000/rpc/testnet/\${KEY}\`) });
const live = createPublicClient({ transport: webSocket(\`ws://localhost:4000/rpc/testnet/\${KEY}\`) });
live.watchBlockNumber({ onBlockNumber: (n) => console.log(n) });`)}</pre>
<pre>${esc(`// ethers v6
import { JsonRpcProvider } from 'ethers';
const provider = new JsonRpcProvider(\`http://localhost:4000/rpc/testnet/\${KEY}\`, 17991, { staticNetwork: true });
console.log(await provider.getBlockNumber());`)}</pre>
</main>`,
);

const GRAPHIQL_PAGE = page(
  'GraphiQL · QBFT developer portal',
  `${ICON_LINK}
<link rel="stylesheet" href="/docs/assets/graphiql/graphiql.min.css">
<style>body{margin:0;height:100vh}#graphiql{height:100vh}</style>`,
  `<div id="graphiql">Loading GraphiQL…</div>
<script src="/docs/assets/react/umd/react.production.min.js"></script>
<script src="/docs/assets/react-dom/umd/react-dom.production.min.js"></script>
<script src="/docs/assets/graphiql/graphiql.min.js"></script>
<script src="/docs/assets/graphiql-start.js"></script>`,
);

/** Queries over HTTP, subscriptions over WebSocket on the same path; tokens go in the Headers tab. */
const GRAPHIQL_START = `'use strict';
(function () {
  var url = location.origin + '/graphql';
  var fetcher = GraphiQL.createFetcher({ url: url, subscriptionUrl: url.replace(/^http/, 'ws') });
  ReactDOM.createRoot(document.getElementById('graphiql')).render(
    React.createElement(GraphiQL, {
      fetcher: fetcher,
      defaultHeaders: '{"Authorization": "Bearer <token from npm run dev:login>"}',
      defaultQuery: '# The explorer is public; other operations need a developer token (Headers tab).\\n' +
        '{\\n  networkStatus(network: testnet) {\\n    lastBlock { number hash }\\n    validatorCount\\n  }\\n}\\n',
    }),
  );
})();
`;

const SWAGGER_PAGE = page(
  'REST reference · QBFT developer portal',
  `${ICON_LINK}
<link rel="stylesheet" href="/docs/assets/swagger-ui/swagger-ui.css">`,
  `<div id="swagger-ui">Loading the REST reference…</div>
<script src="/docs/assets/swagger-ui/swagger-ui-bundle.js"></script>
<script src="/docs/assets/swagger-ui/swagger-ui-standalone-preset.js"></script>
<script src="/docs/assets/swagger-start.js"></script>`,
);

/** validatorUrl null: Swagger UI would otherwise send the documents to validator.swagger.io. */
const SWAGGER_START = `'use strict';
window.ui = SwaggerUIBundle({
  urls: ${JSON.stringify(OPENAPI_DOCUMENTS)},
  dom_id: '#swagger-ui',
  deepLinking: true,
  validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  layout: 'StandaloneLayout',
});
`;

const html = (body: string) => (_req: express.Request, res: express.Response) => {
  res.type('html').send(body);
};
const script = (body: string) => (_req: express.Request, res: express.Response) => {
  res.type('application/javascript').send(body);
};

/** Whether a GET /graphql is a browser asking for a page rather than a GraphQL request over GET. */
export function wantsGraphiQL(req: express.Request): boolean {
  return (
    req.method === 'GET' &&
    req.query.query === undefined &&
    req.accepts(['application/json', 'text/html']) === 'text/html'
  );
}

/** The documents and their assets, with helmet's headers for browser pages (SECURITY.md). */
export function docsPages(): express.Router {
  const router = express.Router();
  const assets = { maxAge: '1d', index: false } as const;
  const pages = pageHeaders();
  router.get('/', pages, html(START_PAGE));
  router.get('/docs', pages, html(SWAGGER_PAGE));
  router.get('/docs/rpc', pages, html(RPC_PAGE));
  // Browsers ask /favicon.ico of every page whatever the page links: the same SVG answers both.
  router.get(['/favicon.svg', '/favicon.ico'], (_req, res) => {
    res.set('Cache-Control', 'public, max-age=86400').type('image/svg+xml').send(FAVICON);
  });
  router.get('/docs/assets/graphiql-start.js', pages, script(GRAPHIQL_START));
  router.get('/docs/assets/swagger-start.js', pages, script(SWAGGER_START));
  router.use('/docs/assets/swagger-ui', pages, express.static(packageDir('swagger-ui-dist'), assets));
  router.use('/docs/assets/graphiql', pages, express.static(packageDir('graphiql'), assets));
  router.use('/docs/assets/react/umd', pages, express.static(path.join(packageDir('react'), 'umd'), assets));
  router.use('/docs/assets/react-dom/umd', pages, express.static(path.join(packageDir('react-dom'), 'umd'), assets));
  router.get('/graphql', (req, res, next) =>
    wantsGraphiQL(req) ? pages(req, res, () => html(GRAPHIQL_PAGE)(req, res)) : next(),
  );
  return router;
}
