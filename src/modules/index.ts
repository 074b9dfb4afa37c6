/**
 * Every domain of the service, in order: the data source takes their entities, the schema their
 * resolvers and the REST layer their routes from this list. The schema's root fields follow it
 * (each resolver's own fields in the order its class declares them), and so do SOFA's routes.
 * Adding a domain is its folder, with its manifest in its index.ts, and one line here.
 */
import { ACCOUNTS_MODULE } from './accounts';
import { ANALYTICS_MODULE } from './analytics';
import { CONTRACTS_MODULE } from './contracts';
import { EVENTS_MODULE } from './events';
import { EXPLORER_MODULE } from './explorer';
import { FAUCET_MODULE } from './faucet';
import { GATEWAY_MODULE } from './gateway';
import { KEYS_MODULE } from './keys';
import { PROJECTS_MODULE } from './projects';
import { RPC_MODULE } from './rpc';
import { SYSTEM_MODULE } from './system';
import { TRANSACTIONS_MODULE } from './transactions';
import { VERIFICATION_MODULE } from './verification';
import { WALLETS_MODULE } from './wallets';
import { WEBHOOKS_MODULE } from './webhooks';

export const MODULES = [
  ACCOUNTS_MODULE,
  ANALYTICS_MODULE,
  CONTRACTS_MODULE,
  EVENTS_MODULE,
  // Hosts the tokens domain (src/modules/tokens).
  EXPLORER_MODULE,
  VERIFICATION_MODULE,
  FAUCET_MODULE,
  GATEWAY_MODULE,
  KEYS_MODULE,
  PROJECTS_MODULE,
  SYSTEM_MODULE,
  TRANSACTIONS_MODULE,
  WALLETS_MODULE,
  WEBHOOKS_MODULE,
  RPC_MODULE,
] as const;
