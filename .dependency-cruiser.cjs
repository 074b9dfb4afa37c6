/**
 * The allowed imports between the folders of src/ (docs/architecture.md has the same table).
 * `npm run lint` runs this check: a violation fails CI.
 * @type {import('dependency-cruiser').IConfiguration}
 */
const KERNEL = '^src/kernel/';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No import cycles, type-only imports included.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'kernel-is-a-leaf',
      comment:
        'The kernel (config, networks, errors, logger, production guard, rate limits) imports nothing else of src/.',
      severity: 'error',
      from: { path: KERNEL, pathNot: '\\.test\\.ts$' },
      to: { path: '^src/', pathNot: KERNEL },
    },
    {
      name: 'foundations-below-the-domains',
      comment:
        'auth/, chain/ and database/ sit below the domains: they import the kernel (auth/ also the entities it reads).',
      severity: 'error',
      from: { path: '^src/(auth|chain|database)/' },
      to: {
        path: '^src/(modules|server|rest|schema|resolvers|app)/',
        pathNot: '^src/modules/[^/]+/[^/]+\\.entity\\.ts$',
      },
    },
    {
      name: 'modules-do-not-import-the-edge',
      comment:
        'A domain never imports the HTTP edge, REST, the schema assembly, the resolver list or the composition root.',
      severity: 'error',
      from: { path: '^src/modules/' },
      to: { path: '^src/(server|rest|resolvers|schema|app)/' },
    },
    {
      name: 'modules-meet-through-their-index',
      comment: 'A module uses another module only through the index.ts that names what it offers.',
      severity: 'error',
      from: { path: '^src/modules/([^/]+)/' },
      to: { path: '^src/modules/', pathNot: ['^src/modules/$1/', '^src/modules/[^/]+/index\\.ts$'] },
    },
    {
      name: 'explorer-views-import-no-other-stage',
      comment:
        'Inside the explorer, views/ (what it shows: view types, their builders, what they are built from) is the bottom stage: it imports nothing else of the explorer.',
      severity: 'error',
      from: { path: '^src/modules/explorer/views/' },
      to: { path: '^src/modules/explorer/', pathNot: '^src/modules/explorer/views/' },
    },
    {
      name: 'explorer-runtime-imports-only-views',
      comment:
        'The explorer runtime/ (what runs in the background) imports views/, never portal/, queries/ or the explorer root.',
      severity: 'error',
      from: { path: '^src/modules/explorer/runtime/' },
      to: { path: '^src/modules/explorer/', pathNot: '^src/modules/explorer/(runtime|views)/' },
    },
    {
      name: 'explorer-portal-below-queries',
      comment:
        'The explorer portal/ (portal contracts as the explorer sees them) imports runtime/ and views/, never queries/ or the explorer root.',
      severity: 'error',
      from: { path: '^src/modules/explorer/portal/' },
      to: { path: '^src/modules/explorer/', pathNot: '^src/modules/explorer/(portal|runtime|views)/' },
    },
    {
      name: 'explorer-queries-below-the-root',
      comment:
        'The explorer queries/ (one folder per resource) import the stages below them, never the explorer root that composes them.',
      severity: 'error',
      from: { path: '^src/modules/explorer/queries/' },
      to: { path: '^src/modules/explorer/[^/]+\\.ts$' },
    },
    {
      name: 'schema-and-rest-below-the-edge',
      comment: 'The schema and REST assembly do not import the HTTP edge or the composition root.',
      severity: 'error',
      from: { path: '^src/(schema|rest|resolvers)/' },
      to: { path: '^src/(server|app)/' },
    },
    {
      name: 'edge-does-not-import-domains',
      comment: 'The HTTP edge gets what it needs from the composition root, not from the domains.',
      severity: 'error',
      from: { path: '^src/server/' },
      to: { path: '^src/(modules|app)/' },
    },
    {
      name: 'nothing-imports-the-composition-root',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(app/|main\\.ts$)' },
      to: { path: '^src/app/' },
    },
    {
      name: 'only-chain-talks-to-nodes',
      comment: 'JSON-RPC transports (and the HTTP client they use) belong to src/chain.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/chain/' },
      to: { path: '(^src/chain/(rpc-transport|failover-transport)\\.ts$)|(^node_modules/undici/)' },
    },
    {
      name: 'only-the-signer-decrypts-keys',
      comment: 'Custodial keys are decrypted only by the wallet service, which signs.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/modules/wallets/(wallets\\.service|wallet-key-cipher(\\.test)?)\\.ts$' },
      to: { path: '^src/modules/wallets/wallet-key-cipher\\.ts$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^(dist|node_modules)' },
  },
};
