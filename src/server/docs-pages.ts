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

const START_PAGE = page(
  'QBFT developer portal',
  '<style>body{font-family:system-ui,sans-serif;max-width:44rem;margin:3rem auto;padding:0 1rem;line-height:1.5}</style>',
  `<h1>QBFT developer portal, contract gateway and explorer</h1>
<ul>
<li><a href="/graphql">GraphiQL</a>: the GraphQL API at <code>/graphql</code> (HTTP and WebSocket)</li>
<li><a href="/docs">REST reference</a> (Swagger UI) of the developer portal and the explorer</li>
${OPENAPI_DOCUMENTS.map((d) => `<li><a href="${d.url}">${d.url}</a>: OpenAPI document of the ${d.name.toLowerCase()}</li>`).join('\n')}
<li><a href="/readyz">/readyz</a>: readiness, with each network's RPC health</li>
</ul>`,
);

const GRAPHIQL_PAGE = page(
  'GraphiQL · QBFT developer portal',
  `<link rel="stylesheet" href="/docs/assets/graphiql/graphiql.min.css">
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
  '<link rel="stylesheet" href="/docs/assets/swagger-ui/swagger-ui.css">',
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
