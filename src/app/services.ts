import type { DataSource } from 'typeorm';
import type { ReadRouting } from '../database/read-routing';
import type { ChainRegistry } from '../chain/chain-registry';
import type { AppConfig } from '../kernel/config';
import { NETWORKS } from '../kernel/network';
import type { Logger } from '../kernel/logger';
import { AccessTokens } from '../auth/access-token';
import { AccountService } from '../modules/accounts/accounts.service';
import { Authority } from '../auth/authority';
import { CrlStore } from '../modules/accounts/eds/crl-store';
import type { TrustStore } from '../modules/accounts/eds/trust-store';
import { ExplorerService, LiveFeed } from '../modules/explorer';
import { ContractEventsService } from '../modules/events';
import { SolidityCompiler } from '../modules/contracts/compiler/compiler';
import { CompileStore } from '../modules/contracts/compiler/compile-store';
import { ContractService } from '../modules/contracts/contracts.service';
import { AnalyticsService } from '../modules/analytics/analytics.service';
import { UsageRecorder } from '../modules/analytics/usage-recorder';
import { FaucetService } from '../modules/faucet/faucet.service';
import { GatewayService } from '../modules/gateway/gateway.service';
import { KnownHeads } from '../modules/gateway/known-heads';
import { ReadCache } from '../modules/gateway/read-cache';
import { ApiKeyService } from '../modules/keys/keys.service';
import { RevocationChannel } from '../modules/keys/revocation-channel';
import { hashApiKey, POLICY_CHANGE_PREFIX, REVOCATION_ACK_TIMEOUT_MS } from '../modules/keys/keys.service';
import { apiKeyOf } from '../auth/credentials';
import { LiveCredentials, logoutNotice, parseLogoutNotice } from '../auth/live-credentials';
import { ProjectService } from '../modules/projects/projects.service';
import { RpcDoorService, RpcSubscriptions } from '../modules/rpc';
import { EtherscanApi, VerificationService } from '../modules/verification';
import type { NetworkName } from '../kernel/network-name';
import { TransactionRecords, TransactionRecordsService, type TransactionStatusSink } from '../modules/transactions';
import { TransactionSender } from '../modules/wallets/transaction-sender';
import { PendingCancels } from '../modules/wallets/pending-cancel';
import { TransactionTracker } from '../modules/wallets/transaction-tracker';
import { WalletService } from '../modules/wallets/wallets.service';
import { WebhookDeliveryWorker } from '../modules/webhooks/delivery-worker';
import { WebhookService } from '../modules/webhooks/webhooks.service';
import { createEventBus, type EventBus } from '../kernel/event-bus';
import { memoryLimitStore, type LimitStore } from '../kernel/limit-store';
import { createRateLimits, RequestLimit, type RateLimits } from '../kernel/rate-limit';

/** The domain services of one process, handed to resolvers through the request context. */
export interface Services {
  auth: Authority;
  accounts: AccountService;
  projects: ProjectService;
  wallets: WalletService;
  chains: ChainRegistry;
  explorer: ExplorerService;
  events: ContractEventsService;
  sender: TransactionSender;
  transactions: TransactionRecordsService;
  faucet: FaucetService;
  compiler: SolidityCompiler;
  contracts: ContractService;
  revocations: RevocationChannel;
  /** The open subscriptions of each key and token (ended by revocations and logouts). */
  liveCredentials: LiveCredentials;
  keys: ApiKeyService;
  usage: UsageRecorder;
  gateway: GatewayService;
  /** The JSON-RPC door (docs/api.md, "JSON-RPC door"). */
  rpc: RpcDoorService;
  analytics: AnalyticsService;
  tracker: TransactionTracker;
  limits: RateLimits;
  webhooks: WebhookService;
  /** Sends the webhook outbox; started and stopped by the composition root. */
  webhookWorker: WebhookDeliveryWorker;
  /** The app's event bus: what its GraphQL subscriptions are fed from. */
  bus: EventBus;
  /** Verification by recompiling (docs/api.md, "Verification"). */
  verification: VerificationService;
  /** The Etherscan-compatible API (docs/api.md, "Etherscan-compatible API"). */
  etherscan: EtherscanApi;
}

export function createServices(deps: {
  ds: DataSource;
  config: AppConfig;
  chains: ChainRegistry;
  trust: TrustStore;
  logger: Logger;
  /** The faucet key in use (FAUCET_PRIVATE_KEY, or a funded dev-chain account). */
  faucetPrivateKey?: string;
  /** URL of the database, for the LISTEN connection of key revocations. */
  databaseUrl: string;
  /** Where the per-second limits count (REDIS_URL: Redis); none: this process's memory. */
  limitStore?: LimitStore;
  /** DATABASE_READ_URL: where the explorer's anonymous index reads go; none: the primary. */
  reads?: ReadRouting;
  /** Told of every transaction record's status change, inside its database transaction (none: nobody). */
  transactionSink?: TransactionStatusSink;
}): Services {
  const tokens = new AccessTokens(deps.config.jwtSecret);
  const bus = createEventBus();
  const limitStore = deps.limitStore ?? memoryLimitStore();
  const limits = createRateLimits(deps.config.limits, deps.ds, limitStore);
  const auth = new Authority(deps.ds, tokens, { adminSubjects: deps.config.adminSubjects }, limits.developer);
  const wallets = new WalletService(deps.ds, deps.config.walletEncryptionKey, deps.chains);
  const projects = new ProjectService(deps.ds);
  const revocation = deps.config.edsCrlFile
    ? { crls: CrlStore.fromFile(deps.config.edsCrlFile), requireCrl: deps.config.edsRequireCrl }
    : undefined;
  // The open subscriptions of each key and token, ended when a revocation or logout is heard
  // (docs/api.md, "Subscriptions and revocation").
  const liveCredentials = new LiveCredentials((creds) => {
    const key = apiKeyOf(creds);
    if (key !== undefined) return { apiKeyHash: creds.apiKeyHash ?? hashApiKey(key) };
    return creds.bearer !== undefined ? auth.tokenClaims(creds.bearer) : undefined;
  });
  const accounts = new AccountService(
    deps.ds,
    tokens,
    deps.trust,
    wallets,
    projects,
    deps.logger,
    revocation,
    async (developerId, generation) => {
      // This instance at once, then every instance through the revocation channel, acknowledged.
      liveCredentials.loggedOut(developerId, generation);
      const { missing } = await revocations.announce(
        deps.ds,
        logoutNotice(developerId, generation),
        REVOCATION_ACK_TIMEOUT_MS,
      );
      if (missing.length > 0) {
        deps.logger.warn({ developerId, instances: missing }, 'Instances did not acknowledge a logout in time');
      }
    },
  );
  const records = new TransactionRecords(deps.ds, deps.logger, deps.transactionSink);
  const sender = new TransactionSender(deps.ds, deps.chains, deps.logger, records);
  const transactions = new TransactionRecordsService(records, {
    // A pending record is cancelled by a replacement the wallets module signs (built below).
    cancelPending: (recordId) => pendingCancels.cancelPending(recordId),
  });
  const faucet = new FaucetService(deps.ds, wallets, sender, deps.faucetPrivateKey, deps.logger);
  const compileCache = deps.config.compileCache;
  const compiler = new SolidityCompiler({
    logger: deps.logger,
    store: compileCache && new CompileStore({ ...compileCache, logger: deps.logger }),
    // REDIS_URL: a client's one compile is one over all instances (docs/api.md, "Several instances").
    sharedSlots: limitStore.kind === 'redis' ? limitStore.connectionCap('compile', 1) : undefined,
  });
  const servers = [deps.config.publicBaseUrl, deps.config.devBaseUrl].filter((u, i, all) => all.indexOf(u) === i);
  const contracts = new ContractService(deps.ds, projects, wallets, sender, compiler, { servers }, deps.logger);
  const explorer = new ExplorerService(
    deps.ds,
    deps.chains,
    {
      // With WEB_CONCURRENCY workers, one of them indexes (docs/api.md, "Operations").
      indexerEnabled: deps.config.indexer.enabled && deps.config.backgroundWork,
      indexerStartBlock: deps.config.indexer.startBlock,
      // Without an RPC URL the service runs the network's dev chain itself.
      localNetworks: deps.config.localNetworks ?? NETWORKS.filter((network) => !deps.config.rpcUrls[network]),
    },
    // This app's live blocks: never shared with another app in the same process.
    new LiveFeed(),
    deps.logger,
    deps.reads,
  );
  const events = new ContractEventsService(contracts, explorer, deps.logger);
  const revocations: RevocationChannel = new RevocationChannel(
    deps.databaseUrl,
    deps.logger,
    (payload) => {
      const logout = parseLogoutNotice(payload);
      if (logout) {
        liveCredentials.loggedOut(logout.developerId, logout.generation);
        return;
      }
      // A key's policies changed or it was rotated with grace: re-read, nothing ended.
      if (payload.startsWith(POLICY_CHANGE_PREFIX)) {
        keys.forget(payload.slice(POLICY_CHANGE_PREFIX.length));
        return;
      }
      keys.forget(payload);
      liveCredentials.keyRevoked(payload);
    },
    () => {
      keys.forgetAll();
      liveCredentials.revocationsMissed();
    },
  );
  const keys = new ApiKeyService(deps.ds, auth, projects, revocations, deps.logger, deps.config.apiKeyRateLimit);
  const usage = new UsageRecorder(deps.ds, deps.logger);
  const pendingCancels = new PendingCancels(
    deps.ds,
    sender,
    {
      signerFor: async (address) => faucet.signerFor(address) ?? wallets.signerForAddress(address),
      spendCapsOf: (keyId) => keys.spendCaps(keyId),
    },
    deps.logger,
  );
  const gateway = new GatewayService(
    deps.ds,
    keys,
    contracts,
    deps.chains,
    wallets,
    sender,
    usage,
    {
      service: new RequestLimit(deps.config.apiKeyRateLimit, 1, 'requests for this API key', {
        store: limitStore,
        keyPrefix: 'key',
      }),
      // A key's own, lower rate: one limiter per rate, counted in the same store.
      own: (perSecond) =>
        new RequestLimit(perSecond, 1, 'requests for this API key', {
          store: limitStore,
          keyPrefix: `key${perSecond}`,
        }),
    },
    deps.logger,
    {
      cache: new ReadCache(deps.config.readCache),
      // Reads are at the head the explorer's watchers follow (each instance follows it itself).
      heads: new KnownHeads({
        head: (network) => explorer.runtime.head(network),
        retain: (network) => explorer.runtime.retain(network),
      }),
    },
  );
  // A failed invoke is sent again by the gateway that sent it (docs/api.md, "Transactions": retry).
  transactions.useRetrier(gateway);
  const rpc = new RpcDoorService(
    deps.chains,
    contracts,
    gateway,
    usage,
    limits.developer,
    // eth_subscribe follows the blocks the explorer's watcher publishes (liveBlocks' feed).
    new RpcSubscriptions(deps.chains, (network) => explorer.blocks.subscribeLiveBlocks(network as NetworkName)),
    explorer.tokens,
    deps.logger,
    deps.ds,
  );
  const analytics = new AnalyticsService(deps.ds, usage);
  const webhooks = new WebhookService(
    deps.ds,
    contracts,
    deps.chains,
    {
      encryptionKey: deps.config.walletEncryptionKey,
      policy: { allowPrivate: deps.config.webhooks.allowPrivateTargets },
    },
    deps.logger,
  );
  // Every record's status change is queued for the developer's webhooks in its own database transaction.
  if (!deps.transactionSink) records.useSink(webhooks);
  const webhookWorker = new WebhookDeliveryWorker(deps.ds, webhooks, events, deps.logger);
  webhookWorker.wakeOnIndexed(explorer.runtime.indexed);
  const tracker = new TransactionTracker(
    deps.ds,
    deps.chains,
    sender,
    {
      signerFor: async (address) => faucet.signerFor(address) ?? wallets.signerForAddress(address),
      onMined: async (tx, mined) => {
        if (tx.kind === 'deploy' && tx.contractId) await contracts.settleDeployment(tx.contractId, mined);
        // A deployment cancelled by replacement never creates its contract (an invoked one is not deploying).
        if (tx.kind === 'cancel' && tx.contractId) {
          await contracts.failDeployment(tx.contractId, 'the deployment was cancelled');
        }
        // A drip cancelled by replacement never landed: not counted.
        if (tx.kind === 'cancel' && tx.replaces?.kind === 'faucet') await faucet.forgetUnlanded(tx.replaces.txHash);
      },
      onDropped: async (tx) => {
        // A drip whose transaction never landed is not counted, nor one whose cancel was dropped in
        // turn (its record ends failed, and the drip's nonce went to another transaction).
        if (tx.kind === 'faucet') await faucet.forgetUnlanded(tx.txHash);
        if (tx.kind === 'cancel' && tx.replaces?.kind === 'faucet') await faucet.forgetUnlanded(tx.replaces.txHash);
        if (tx.kind === 'deploy' && tx.contractId) {
          await contracts.failDeployment(tx.contractId, 'the deployment transaction was dropped');
        }
      },
    },
    deps.logger,
  );
  const verification = new VerificationService(deps.ds, explorer.reader, compiler, deps.logger);
  const etherscan = new EtherscanApi(deps.ds, explorer.reader, verification, deps.logger, explorer.tokens);
  return {
    auth,
    accounts,
    projects,
    wallets,
    chains: deps.chains,
    sender,
    transactions,
    faucet,
    compiler,
    contracts,
    explorer,
    events,
    revocations,
    liveCredentials,
    keys,
    usage,
    gateway,
    rpc,
    analytics,
    tracker,
    limits,
    webhooks,
    webhookWorker,
    bus,
    verification,
    etherscan,
  };
}
