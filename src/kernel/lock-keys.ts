/**
 * Every PostgreSQL advisory lock the service takes, named in one place so that no two features
 * share a key by accident. PostgreSQL keeps one-key (bigint) and two-key (int, int) locks apart,
 * and `hashtext` names are per resource.
 */
export const LOCK_KEYS = {
  /** One key: serialises migrations between instances. */
  migrations: 7_991_001,
  /** One key: one instance at a time runs the transaction tracker. */
  transactionTracker: 7_991_002,
  /** Two keys: this class, then the chain id: one explorer indexer per network. */
  explorerIndexerClass: 7_991_002,
  /** `hashtext` names, one per resource. */
  nonce: (walletKey: string) => `nonce:${walletKey}`,
  faucetDrips: (developerId: string) => `faucet:${developerId}`,
  apiKeys: (developerId: string) => `api-keys:${developerId}`,
  webhooks: (developerId: string) => `webhooks:${developerId}`,
  keySpend: (keyId: string) => `key-spend:${keyId}`,
} as const;
