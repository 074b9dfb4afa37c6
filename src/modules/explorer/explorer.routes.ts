import type { RestRoute } from '../../kernel/domain-manifest';

/** The explorer module's REST routes (docs/api.md, "Explorer"). */
export const EXPLORER_ROUTES: readonly RestRoute[] = [
  {
    area: 'explorer',
    method: 'GET',
    path: '/live-blocks',
    field: 'Query.liveBlocks',
    auth: 'public',
    summary: 'Latest blocks of a network, newest first',
  },
  {
    area: 'explorer',
    method: 'GET',
    path: '/network-status',
    field: 'Query.networkStatus',
    // docs/api.md, "Explorer": `rpc: {healthy, latencyMs, error?}`.
    omitWhenNull: ['rpc.error'],
    auth: 'public',
    summary: 'Last block, validators, average block time, RPC health and index progress',
  },
  {
    area: 'explorer',
    method: 'GET',
    path: '/search',
    field: 'Query.search',
    auth: 'public',
    summary: 'Search blocks, transactions, addresses, portal contracts and verified assets',
  },
  {
    area: 'explorer',
    method: 'GET',
    path: '/tx/{hash}',
    field: 'Query.transaction',
    // docs/api.md, "Explorer": `{found: false}`, or the transaction with `method?`.
    omitWhenNull: [
      'transaction.method',
      // docs/api.md, "Tokens": `batchIndex?`, `value?`, `tokenId?`.
      'transaction.tokenTransfers[].batchIndex',
      'transaction.tokenTransfers[].value',
      'transaction.tokenTransfers[].tokenId',
      'transaction',
    ],
    auth: 'public',
    summary: 'A transaction with its receipt and logs',
  },
  {
    area: 'explorer',
    method: 'GET',
    path: '/block/{id}',
    field: 'Query.block',
    // docs/api.md, "Explorer": `{found, block?}`.
    omitWhenNull: ['block'],
    auth: 'public',
    summary: 'A block by number, hash or "latest"',
  },
  {
    area: 'explorer',
    method: 'GET',
    path: '/address/{address}',
    field: 'Query.address',
    // docs/api.md, "Explorer": `info?` with `contract?`, activity items with `method?`.
    omitWhenNull: ['info.contract', 'info', 'activity[].method'],
    auth: 'public',
    summary: 'Balance, nonce, code and recent transactions of an address',
  },
  {
    area: 'explorer',
    method: 'GET',
    path: '/verified-assets/recent',
    field: 'Query.recentVerifiedAssets',
    auth: 'public',
    summary: 'Recently verified mainnet token assets',
  },
];
