import type { GraphQLSchema } from 'graphql';
import cluster from 'node:cluster';
import { readFileSync } from 'node:fs';
import type { DataSource } from 'typeorm';
import { installKeccakCache } from '../chain/keccak-cache';
import { ChainRegistry } from '../chain/chain-registry';
import { LOCAL_NODE_FUNDED_KEY, startLocalNode } from '../chain/local-node';

/** The URLs of a comma-separated `*_RPC_URL`, in order. */
const splitUrls = (value: string | undefined): string[] =>
  (value ?? '')
    .split(',')
    .map((u) => u.trim())
    .filter(Boolean);
import type { AppConfig } from '../kernel/config';
import { CHAIN_IDS, NETWORKS, type Network } from '../kernel/network';
import { ReadRouting } from '../database/read-routing';
import { createDataSource, isDatabaseReady, runMigrations } from '../database/data-source';
import { startEmbeddedPostgres } from '../database/embedded-postgres';
import type { Logger } from '../kernel/logger';
import { loadOrCreateDevCa } from '../modules/accounts/eds/dev-ca';
import { TrustStore } from '../modules/accounts/eds/trust-store';
import { resolverContainer } from '../resolvers';
import { buildAppSchema } from '../schema/build-schema';
import type { NetworkName } from '../kernel/network-name';
import { schemaPubSub } from '../schema/subscriptions';
import { startHttpServer, type ReadinessReport } from '../server/http-server';
import { instanceMetricsOfWorker } from '../server/instance-metrics';
import { Metrics } from '../server/metrics';
import { createServices, type Services } from './services';
import { Session } from '../auth/session';
import type { ContractEventsSubscription } from '../modules/events';
import type { TokenTransfersSubscription } from '../modules/tokens';
import { webhookBacklog } from '../modules/webhooks';
import { COMPILE_LANES, type CompileLane } from '../modules/contracts/compiler/compiler';
import { AppError } from '../kernel/errors/app-error';
import { createLimitStore } from '../kernel/limit-store';
import { INVALID_NETWORK_MESSAGE } from '../kernel/errors/error-map';

const isNetwork = (value: string): value is Network => (NETWORKS as readonly string[]).includes(value);

export interface App {
  url: string;
  config: AppConfig;
  dataSource: DataSource;
  services: Services;
  /** The app's GraphQL schema (its resolvers hold this app's services). */
  schema: GraphQLSchema;
  /** RPC URLs in use, including local nodes started in zero-config mode (never sent to clients). */
  rpcUrls: Record<Network, string | undefined>;
  /** The faucet key in use: FAUCET_PRIVATE_KEY, or a funded dev-chain account in zero-config mode. */
  faucetPrivateKey?: string;
  /** Stops everything the app started, in reverse order. */
  close(): Promise<void>;
}

/** The EDS trust bundle: EDS_TRUSTED_CA_FILE, or (outside production) the development CA. */
async function loadTrust(config: AppConfig, logger: Logger): Promise<TrustStore> {
  if (config.edsTrustedCaFile) return TrustStore.fromPem(readFileSync(config.edsTrustedCaFile, 'utf8'));
  const ca = await loadOrCreateDevCa(config.dataDir);
  logger.warn({ bundle: ca.bundlePath }, 'EDS_TRUSTED_CA_FILE unset: trusting the development CA (npm run dev:login)');
  return TrustStore.fromPem(ca.certificatePem);
}

/** What the service runs on: its database and a node per network (started here in zero-config mode). */
export interface Dependencies {
  databaseUrl: string;
  rpcUrls: Record<Network, string | undefined>;
  faucetPrivateKey?: string;
  /** Networks served by a dev chain started here. */
  localNetworks: Network[];
}

/**
 * Starts what the configuration does not name: the embedded PostgreSQL without DATABASE_URL, a
 * dev chain per network without its RPC URL; `onClose` gets how to stop each. With
 * WEB_CONCURRENCY workers the primary calls it once and gives the result to every worker.
 */
export async function startDependencies(
  config: AppConfig,
  logger: Logger,
  onClose: (name: string, run: () => Promise<void>) => void,
): Promise<Dependencies> {
  let databaseUrl = config.databaseUrl;
  if (!databaseUrl) {
    const pg = await startEmbeddedPostgres({ dataDir: config.dataDir, logger });
    onClose('embedded PostgreSQL', () => pg.stop());
    databaseUrl = pg.url;
    logger.info('DATABASE_URL unset: started the embedded PostgreSQL');
  }
  const rpcUrls = { ...config.rpcUrls } as Record<Network, string | undefined>;
  let faucetPrivateKey = config.faucetPrivateKey;
  const localNetworks: Network[] = [...(config.localNetworks ?? [])];
  for (const network of NETWORKS) {
    if (rpcUrls[network]) continue;
    const node = await startLocalNode({
      chainId: CHAIN_IDS[network],
      blockTime: config.localChainBlockTime,
      logger,
      stateDir: config.env === 'test' ? undefined : config.dataDir,
    });
    onClose(`${network} dev chain`, () => node.stop());
    rpcUrls[network] = node.url;
    localNetworks.push(network);
    if (network === 'testnet') faucetPrivateKey ??= LOCAL_NODE_FUNDED_KEY;
    logger.info(
      { network, chainId: node.chainId },
      `${network.toUpperCase()}_RPC_URL unset: started a local dev chain`,
    );
  }
  return { databaseUrl, rpcUrls, faucetPrivateKey, localNetworks };
}

/** Starts the whole service: database, chains, schema, HTTP/WebSocket server. */
export async function startApp(config: AppConfig, logger: Logger): Promise<App> {
  const cleanups: Array<{ name: string; run: () => Promise<void> }> = [];
  const onClose = (name: string, run: () => Promise<void>) => cleanups.push({ name, run });
  const close = async () => {
    while (cleanups.length > 0) {
      const step = cleanups.pop()!;
      const started = Date.now();
      await step.run().catch((err: unknown) => logger.error({ err, step: step.name }, 'error while shutting down'));
      logger.info({ step: step.name, ms: Date.now() - started }, 'stopped');
    }
  };
  try {
    const deps = await startDependencies(config, logger, onClose);
    const databaseUrl = deps.databaseUrl;
    const ds = createDataSource(databaseUrl, { poolSize: config.databasePoolSize });
    await ds.initialize();
    onClose('database pool', () => ds.destroy());
    const applied = await runMigrations(ds);
    if (applied.length > 0) logger.info({ applied }, 'migrations applied');
    const { rpcUrls, faucetPrivateKey } = deps;
    // anvil serves WebSocket on its HTTP port: the dev chains started for this service are followed over it.
    const wsUrls: Record<Network, string[]> = {
      testnet: config.networks.testnet.wsUrls,
      mainnet: config.networks.mainnet.wsUrls,
    };
    for (const network of deps.localNetworks) wsUrls[network] = [rpcUrls[network]!.replace(/^http/, 'ws')];
    // DATABASE_READ_URL: a replica for anonymous explorer reads; never migrated from here.
    let replica: DataSource | undefined;
    if (config.databaseReadUrl) {
      const readDs = createDataSource(config.databaseReadUrl, { poolSize: config.databasePoolSize });
      await readDs.initialize();
      onClose('database replica pool', () => readDs.destroy());
      replica = readDs;
      logger.info('DATABASE_READ_URL set: anonymous explorer reads go to the replica');
    }
    const reads = new ReadRouting(ds, replica, logger);
    installKeccakCache();
    const chains = await ChainRegistry.connect(
      {
        testnet: { ...config.networks.testnet, urls: splitUrls(rpcUrls.testnet), wsUrls: wsUrls.testnet },
        mainnet: { ...config.networks.mainnet, urls: splitUrls(rpcUrls.mainnet), wsUrls: wsUrls.mainnet },
      },
      logger,
    );
    onClose('chain providers', async () => chains.destroy());

    const trust = await loadTrust(config, logger);
    const limitStore = createLimitStore(config.redisUrl, logger);
    onClose('limit store', () => limitStore.close());
    const services = createServices({
      ds,
      config,
      chains,
      trust,
      logger,
      faucetPrivateKey,
      databaseUrl,
      limitStore,
      reads,
    });
    onClose('Solidity compiler', () => services.compiler.close());
    onClose('contract documents worker', () => services.contracts.close());
    // Before the compiler and the database close: running verification jobs finish first.
    onClose('verification jobs', () => services.verification.drain());
    await services.revocations.start();
    onClose('API key revocation channel', () => services.revocations.stop());
    // Flushed after the HTTP server stops, so the records of the last requests are kept.
    onClose('gateway usage records', async () => {
      await services.usage.close();
      await services.keys.close();
    });
    // Background work runs once per instance group: on one worker of WEB_CONCURRENCY (docs/api.md, "Operations").
    if (config.backgroundWork) services.tracker.start();
    onClose('transaction tracker', () => services.tracker.stop());
    onClose('accepted invokes', () => services.gateway.drain());
    onClose('accepted deployments', () => services.contracts.drain());
    // Stopped after the HTTP server (no new webhooks) and before the database: claims in flight are given back.
    if (config.backgroundWork) services.webhookWorker.start();
    onClose('webhook deliveries', () => services.webhookWorker.stop());
    const schema = await buildAppSchema({
      container: resolverContainer({ ...services, loginLimit: services.limits.login }),
      pubSub: schemaPubSub(services.bus, {
        liveBlocks: (network) => services.explorer.blocks.subscribeLiveBlocks(network as NetworkName | null),
        // The field's topicId builds this request from its arguments and the operation's session.
        contractEvents: (request) => services.events.follow(request as ContractEventsSubscription),
        tokenTransfers: (request) => services.explorer.tokens.follow(request as TokenTransfersSubscription),
      }),
    });
    // One clock per app feeds every serverTime subscriber.
    const clock = setInterval(() => services.bus.publish('SERVER_TIME', { now: new Date() }), 1000);
    clock.unref();
    onClose('server clock', async () => clearInterval(clock));
    const metrics = new Metrics();
    // WEB_CONCURRENCY > 1: /metrics answers for the whole instance, every worker added up.
    if (cluster.isWorker) metrics.instanceText = instanceMetricsOfWorker(metrics.registry);
    metrics.observeReadCache(() => services.gateway.readCacheStats());
    metrics.observeCompileLanes(COMPILE_LANES, (lane) => services.compiler.loadOf(lane as CompileLane));
    chains.observeNodes((network, host, seconds, failed) => metrics.nodeExchange(network, host, seconds, failed));
    metrics.observeBackgroundWork({
      indexLag: async () => {
        const entries = await Promise.all(
          NETWORKS.map(async (n) => {
            const head = services.explorer.runtime.head(n);
            const state = await services.explorer.index.state(n);
            return [n, head && state ? Math.max(0, head.number - state.lastBlock) : null] as const;
          }),
        );
        return Object.fromEntries(entries);
      },
      webhookBacklog: () => webhookBacklog(ds),
    });
    onClose('gateway read heads', async () => services.gateway.close());

    const readiness = async (): Promise<ReadinessReport> => {
      const [dbReady, ...health] = await Promise.all([isDatabaseReady(ds), ...NETWORKS.map((n) => chains.health(n))]);
      // A halted explorer index does not stop the service from serving; the report names it.
      const halted = dbReady
        ? await Promise.all(NETWORKS.map((n) => services.explorer.index.state(n).then((s) => s?.haltedReason ?? null)))
        : [];
      return {
        ready: dbReady,
        database: { ready: dbReady },
        limits: { store: limitStore.kind },
        worker: { id: cluster.worker?.id ?? 0, backgroundWork: config.backgroundWork },
        networks: Object.fromEntries(
          health.map((h, i) => [
            h.network,
            {
              healthy: h.healthy,
              chainId: h.chainId,
              latencyMs: h.latencyMs,
              ...(h.error ? { error: h.error } : {}),
              ...(halted[i] ? { explorerIndexHalted: halted[i] } : {}),
            },
          ]),
        ),
      };
    };

    const http = await startHttpServer({
      host: config.host,
      port: config.port,
      schema,
      chargeableDeveloper: (credentials) =>
        services.auth.chargeableDeveloper(credentials, (creds) => services.keys.knownDeveloper(creds)),
      limits: services.limits,
      limitStore,
      sessionFor: (credentials, clientIp) => new Session(credentials, clientIp, services.auth, services.keys),
      liveCredentials: services.liveCredentials,
      logger,
      metrics,
      readiness,
      rpc: {
        answer: (network, body, parsed, ctx) => {
          if (!isNetwork(network)) {
            return {
              status: 404,
              body: { jsonrpc: '2.0', id: null, error: { code: -32602, message: INVALID_NETWORK_MESSAGE } },
            };
          }
          return services.rpc.answer(network, body, parsed, ctx.session);
        },
        open: async (network, session, peer) => {
          if (!isNetwork(network)) throw new AppError('INVALID_NETWORK', INVALID_NETWORK_MESSAGE);
          return services.rpc.openSocket(network, session, peer);
        },
      },
      etherscan: (network, params, ctx) => services.etherscan.answer(network, params, ctx.session.clientIp),
      servers: [config.publicBaseUrl, config.devBaseUrl].filter((u, i, all) => all.indexOf(u) === i),
      documents: {
        'Query.contractOpenApi': ({ id }) => services.contracts.openApiDocument(id ?? ''),
        'Query.contractSwagger': ({ id }) => services.contracts.swaggerDocument(id ?? ''),
      },
      // A gateway read the read cache holds, answered before GraphQL runs (docs/api.md, "Gateway").
      hotReads: {
        'Mutation.queryContract': ({ id, method, args }, ctx) =>
          typeof id === 'string' && typeof method === 'string'
            ? services.gateway.queryNow(ctx.session, id, method, args)
            : undefined,
      },
      edge: {
        trustProxy: config.trustProxy,
        corsOrigins: config.corsOrigins,
        wsConnectionsPerIp: config.limits.wsConnectionsPerIp,
        metricsToken: config.metrics.token,
        metricsPort: config.metrics.port,
        metricsLoopbackOnly: config.env === 'production',
      },
    });
    onClose('HTTP server', () => http.close());
    // The explorer follows the chains in the background, started once requests can be served.
    services.explorer.start();
    onClose('explorer indexers and watchers', () => services.explorer.stop());

    return { url: http.url, config, dataSource: ds, services, schema, rpcUrls, faucetPrivateKey, close };
  } catch (err) {
    await close();
    throw err;
  }
}
