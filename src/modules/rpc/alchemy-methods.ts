import type { Network } from '../../kernel/network';
import { AppError } from '../../kernel/errors/app-error';
import { isAddressLike } from '../../kernel/address';
import type { TokensService, TokenTransfer, TransferPosition } from '../tokens';

/**
 * Alchemy's token methods on the JSON-RPC door (docs/api.md, "JSON-RPC door" and "Tokens"), with
 * Alchemy's parameters and answer shapes, served from the token index.
 */
export const ALCHEMY_METHODS: ReadonlySet<string> = new Set(['alchemy_getAssetTransfers', 'alchemy_getTokenBalances']);

/** Alchemy's categories the index holds; `external`, `internal` and `specialnft` are refused by name. */
const CATEGORY_TYPES: Record<string, 'ERC-20' | 'ERC-721' | 'ERC-1155'> = {
  erc20: 'ERC-20',
  erc721: 'ERC-721',
  erc1155: 'ERC-1155',
};
const TYPE_CATEGORY = { 'ERC-20': 'erc20', 'ERC-721': 'erc721', 'ERC-1155': 'erc1155' } as const;
const DEFAULT_MAX_COUNT = 1000;
const HEX_QUANTITY = /^0x[0-9a-fA-F]{1,16}$/;

const invalid = (message: string) => new AppError('INVALID_ARGUMENT', message);
const hex = (n: bigint | number) => `0x${n.toString(16)}`;
/** A 32-byte word, as Alchemy writes token ids and balances. */
const word = (n: bigint) => `0x${n.toString(16).padStart(64, '0')}`;

function blockOf(value: unknown, name: string, head: number): number {
  if (value === undefined || value === 'latest') return head;
  if (value === 'earliest') return 0;
  if (typeof value === 'string' && HEX_QUANTITY.test(value)) return Number(BigInt(value));
  throw invalid(`${name} must be a hex block number, "earliest" or "latest"`);
}

function addressOf(value: unknown, name: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string' && isAddressLike(value)) return value;
  throw invalid(`${name} must be an address`);
}

/** An Alchemy page key: the position of the last transfer sent. */
function pageKeyOf(value: unknown): TransferPosition | null {
  if (value === undefined || value === null) return null;
  const m = typeof value === 'string' ? /^(\d{1,15}):(-?\d{1,10}):(-?\d{1,10})$/.exec(value) : null;
  if (!m) throw invalid('pageKey was not issued by this service');
  return { b: Number(m[1]), l: Number(m[2]), i: Number(m[3]) };
}

/** A decimal amount as a JSON number, as Alchemy shows `value` (scaled by the token's decimals). */
function scaled(raw: string, decimals: number | null): number {
  const divisor = 10 ** (decimals ?? 0);
  return Number(raw) / divisor;
}

/** One transfer in Alchemy's shape. */
function assetTransfer(t: TokenTransfer, withMetadata: boolean) {
  const category = TYPE_CATEGORY[t.token.type as keyof typeof TYPE_CATEGORY];
  const tokenId = t.tokenId === null ? null : word(BigInt(t.tokenId));
  const value = t.value === null ? null : BigInt(t.value);
  return {
    blockNum: hex(t.blockNumber),
    uniqueId: `${t.transactionHash}:log:${hex(t.logIndex)}${t.batchIndex === null ? '' : `:${t.batchIndex}`}`,
    hash: t.transactionHash,
    from: t.from.toLowerCase(),
    to: t.to.toLowerCase(),
    value: category === 'erc20' && t.value !== null ? scaled(t.value, t.token.decimals) : null,
    erc721TokenId: category === 'erc721' ? tokenId : null,
    erc1155Metadata: category === 'erc1155' && value !== null ? [{ tokenId, value: hex(value) }] : null,
    tokenId,
    asset: t.token.symbol,
    category,
    rawContract: {
      value: value === null ? null : word(value),
      address: t.token.address.toLowerCase(),
      decimal: category === 'erc20' && t.token.decimals !== null ? hex(t.token.decimals) : null,
    },
    ...(withMetadata ? { metadata: { blockTimestamp: new Date(t.timestamp * 1000).toISOString() } } : {}),
  };
}

/** `alchemy_getAssetTransfers([{fromBlock, toBlock, fromAddress, toAddress, contractAddresses, category, order, withMetadata, excludeZeroValue, maxCount, pageKey}])`. */
export async function getAssetTransfers(
  tokens: TokensService,
  network: Network,
  params: unknown[],
  head: () => Promise<number>,
): Promise<unknown> {
  const q = params[0];
  if (typeof q !== 'object' || q === null || Array.isArray(q)) throw invalid('the parameter must be an object');
  const o = q as Record<string, unknown>;
  const categories = o.category;
  if (!Array.isArray(categories) || categories.length === 0) throw invalid('category must be a non-empty list');
  const types = categories.map((c) => {
    const type = typeof c === 'string' ? CATEGORY_TYPES[c] : undefined;
    if (!type) {
      throw invalid(`category ${String(c).slice(0, 32)} is not served: the index holds erc20, erc721 and erc1155`);
    }
    return type;
  });
  const needHead = [o.fromBlock, o.toBlock].some((b) => b === undefined || b === 'latest');
  const headBlock = needHead ? await head() : 0;
  const fromBlock = blockOf(o.fromBlock ?? '0x0', 'fromBlock', headBlock);
  const toBlock = blockOf(o.toBlock, 'toBlock', headBlock);
  const contracts =
    o.contractAddresses === undefined || o.contractAddresses === null
      ? null
      : Array.isArray(o.contractAddresses) && o.contractAddresses.length <= 1000
        ? o.contractAddresses.map((a, i) => addressOf(a, `contractAddresses[${i}]`)!)
        : (() => {
            throw invalid('contractAddresses must be a list of at most 1000 addresses');
          })();
  if (o.order !== undefined && o.order !== 'asc' && o.order !== 'desc') throw invalid('order must be "asc" or "desc"');
  let maxCount = DEFAULT_MAX_COUNT;
  if (o.maxCount !== undefined) {
    const n =
      typeof o.maxCount === 'string' && HEX_QUANTITY.test(o.maxCount) ? Number(BigInt(o.maxCount)) : Number(o.maxCount);
    if (!Number.isInteger(n) || n < 1 || n > DEFAULT_MAX_COUNT) throw invalid('maxCount must be from 0x1 to 0x3e8');
    maxCount = n;
  }
  const found = await tokens.assetTransfers(network, {
    fromBlock,
    toBlock,
    from: addressOf(o.fromAddress, 'fromAddress'),
    to: addressOf(o.toAddress, 'toAddress'),
    tokens: contracts,
    types,
    order: o.order === 'desc' ? 'desc' : 'asc',
    after: pageKeyOf(o.pageKey),
    limit: maxCount + 1,
  });
  const page = found.slice(0, maxCount);
  const items = page
    .filter(({ item }) => !(o.excludeZeroValue !== false && item.value === '0'))
    .map(({ item }) => assetTransfer(item, o.withMetadata === true));
  const last = page[page.length - 1];
  return {
    transfers: items,
    ...(found.length > maxCount && last ? { pageKey: `${last.position.b}:${last.position.l}:${last.position.i}` } : {}),
  };
}

/** `alchemy_getTokenBalances(address, "erc20" | "DEFAULT_TOKENS" | [contract, ...])`. */
export async function getTokenBalances(tokens: TokensService, network: Network, params: unknown[]): Promise<unknown> {
  const holder = addressOf(params[0], 'address');
  if (!holder) throw invalid('address is required');
  const spec = params[1] ?? 'erc20';
  let contracts: string[] | null;
  if (spec === 'erc20' || spec === 'DEFAULT_TOKENS') contracts = null;
  else if (Array.isArray(spec) && spec.length > 0 && spec.length <= 1000) {
    contracts = spec.map((a, i) => addressOf(a, `contractAddresses[${i}]`)!);
  } else {
    throw invalid('the second parameter must be "erc20", "DEFAULT_TOKENS" or a list of at most 1000 token addresses');
  }
  const balances = await tokens.erc20Balances(network, holder, contracts);
  return {
    address: holder.toLowerCase(),
    tokenBalances: balances.map((b) => ({
      contractAddress: b.token.toLowerCase(),
      tokenBalance: word(BigInt(b.value)),
      error: null,
    })),
  };
}
