import { Interface, type InterfaceAbi } from 'ethers';
import type { DataSource } from 'typeorm';
import { isAppError } from '../../kernel/errors/app-error';
import { checksum, isAddressLike } from '../../kernel/address';
import { clientLimitKey } from '../../kernel/client-address';
import { CHAIN_IDS, NETWORKS, type Network } from '../../kernel/network';
import type { Logger } from '../../kernel/logger';
import type { ChainReader } from '../explorer';
import type { NetworkName } from '../../kernel/network-name';
import type { TokenType, TokensService } from '../tokens';
import { SubmissionRefused, type VerificationService, type VerifiedContract } from './verification.service';
import { accountTransactions, blockTimestamps, closestBlock, transactionsByHash } from './etherscan-index.query';

/** An answer of the Etherscan-compatible API: always HTTP 200 (docs/api.md, "Etherscan-compatible API"). */
export interface EtherscanAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

type Params = Record<string, string>;
type Row = Record<string, unknown>;

const ok = (result: unknown, message = 'OK'): EtherscanAnswer => ({
  status: 200,
  body: { status: '1', message, result },
});
const notOk = (result: unknown, message = 'NOTOK'): EtherscanAnswer => ({
  status: 200,
  body: { status: '0', message, result },
});

/** Etherscan's exact words, which clients compare literally. */
export const ETHERSCAN_WORDS = {
  pending: 'Pending in queue',
  pass: 'Pass - Verified',
  fail: 'Fail - Unable to verify',
  already: 'Already Verified',
  unknownGuid: 'Unknown UID',
  alreadyVerified: 'Contract source code already verified',
  notVerified: 'Contract source code not verified',
  noTransactions: 'No transactions found',
  noRecords: 'No records found',
} as const;

/** txlist's `offset` at most (Etherscan's page × offset bound). */
const MAX_OFFSET = 10_000;
/** getLogs: blocks per request and records per answer (Etherscan's 1,000). */
const MAX_LOG_BLOCKS = 10_000;
const MAX_LOG_RECORDS = 1_000;
const MAX_BALANCEMULTI = 20;
const PROXY_METHODS = new Set([
  'eth_blockNumber',
  'eth_getBlockByNumber',
  'eth_getTransactionByHash',
  'eth_getTransactionReceipt',
  'eth_call',
  'eth_getCode',
]);

/** The network of an Etherscan request: the path's, or `chainid`'s on the shared base URL. */
export function etherscanNetwork(pathNetwork: string | null, chainid: string | undefined): Network | string {
  const byChain = NETWORKS.find((n) => String(CHAIN_IDS[n]) === chainid);
  if (pathNetwork === null) {
    return (
      byChain ?? `Missing or unsupported chainid parameter (${CHAIN_IDS.testnet} testnet, ${CHAIN_IDS.mainnet} mainnet)`
    );
  }
  const network = NETWORKS.find((n) => n === pathNetwork);
  if (!network) return 'Invalid network: testnet or mainnet';
  if (chainid !== undefined && chainid !== '' && byChain !== network) {
    return `chainid ${chainid.slice(0, 20)} is not the ${network}'s (${CHAIN_IDS[network]})`;
  }
  return network;
}

/**
 * The Etherscan-compatible API (docs/api.md, "Etherscan-compatible API"): module=contract
 * (verification and verified sources), account, block, logs and proxy, in Etherscan's shapes and
 * words, always HTTP 200.
 */
export class EtherscanApi {
  constructor(
    private readonly ds: DataSource,
    private readonly reader: ChainReader,
    private readonly verification: VerificationService,
    private readonly logger: Logger,
    /** The token index (docs/api.md, "Tokens"), for the token actions. */
    private readonly tokens?: TokensService,
  ) {}

  /** Answers one request; `clientAddress` is the caller's address (its compiles are counted by it). */
  async answer(pathNetwork: string | null, params: Params, clientAddress?: string): Promise<EtherscanAnswer> {
    const network = etherscanNetwork(pathNetwork, params.chainid);
    if (!(NETWORKS as readonly string[]).includes(network)) return notOk(network);
    try {
      return await this.dispatch(network as Network, params, clientAddress && clientLimitKey(clientAddress));
    } catch (err) {
      if (err instanceof SubmissionRefused) return notOk(err.message);
      if (isAppError(err) && (err.code === 'UPSTREAM_RPC_ERROR' || err.code === 'NETWORK_UNAVAILABLE')) {
        return notOk(`The ${network} node could not answer; try again`);
      }
      if (isAppError(err) && err.code === 'VALIDATION_FAILED') return notOk(err.message);
      this.logger.error({ err: String(err) }, 'Etherscan-compatible API request failed');
      return notOk('Unexpected error; try again');
    }
  }

  private async dispatch(network: Network, p: Params, client: string | undefined): Promise<EtherscanAnswer> {
    const action = p.action ?? '';
    switch (p.module) {
      case 'contract':
        switch (action) {
          case 'verifysourcecode':
            return this.verifySourceCode(network, p, client);
          case 'checkverifystatus':
            return this.checkVerifyStatus(p.guid ?? '');
          case 'getsourcecode':
            return this.getSourceCode(network, p.address ?? '');
          case 'getabi':
            return this.getAbi(network, p.address ?? '');
          case 'getcontractcreation':
            return this.getContractCreation(network, p.contractaddresses ?? '');
        }
        break;
      case 'account':
        switch (action) {
          case 'balance':
            return this.balances(network, p.address ?? '', false, p.tag);
          case 'balancemulti':
            return this.balances(network, p.address ?? '', true, p.tag);
          case 'txlist':
            return this.txlist(network, p);
          case 'tokentx':
            return this.tokenTransfers(network, p, 'ERC-20');
          case 'tokennfttx':
            return this.tokenTransfers(network, p, 'ERC-721');
          case 'token1155tx':
            return this.tokenTransfers(network, p, 'ERC-1155');
          case 'tokenbalance':
            return this.tokenBalance(network, p);
          case 'tokenlist':
            return this.tokenList(network, p);
        }
        break;
      case 'stats':
        if (action === 'tokensupply') return this.tokenSupply(network, p);
        break;
      case 'block':
        if (action === 'getblocknobytime') return this.blockByTime(network, p);
        break;
      case 'logs':
        if (action === 'getLogs') return this.getLogs(network, p);
        break;
      case 'proxy':
        return this.proxy(network, p);
    }
    return notOk('Error! Missing Or invalid Module name / Action name');
  }

  private async verifySourceCode(network: Network, p: Params, client: string | undefined): Promise<EtherscanAnswer> {
    const address = p.contractaddress ?? '';
    if (!isAddressLike(address)) return notOk('Invalid contractaddress format');
    const codeFormat = p.codeformat ?? 'solidity-single-file';
    if (codeFormat !== 'solidity-standard-json-input' && codeFormat !== 'solidity-single-file') {
      return notOk('codeformat must be solidity-standard-json-input or solidity-single-file');
    }
    if (!p.sourceCode) return notOk('Missing sourceCode');
    if (!p.contractname) return notOk('Missing contractname');
    if (!p.compilerversion) return notOk('Missing compilerversion');
    const args = p.constructorArguements ?? p.constructorArguments ?? '';
    if (!/^(0x)?([0-9a-fA-F]{2})*$/.test(args)) return notOk('constructorArguements must be hex');
    const runs = p.runs === undefined || p.runs === '' ? 200 : Number(p.runs);
    if (!Number.isSafeInteger(runs) || runs < 0) return notOk('runs must be a whole number');
    const guid = await this.verification.submit(network, {
      address,
      codeFormat,
      sourceCode: p.sourceCode,
      contractName: p.contractname,
      compilerVersion: p.compilerversion,
      optimizationUsed: p.optimizationUsed === '1' || p.optimizationUsed === 'true',
      runs,
      evmVersion: p.evmversion || undefined,
      constructorArguments: args,
      licenseType: p.licenseType,
      client,
    });
    return ok(guid);
  }

  private async checkVerifyStatus(guid: string): Promise<EtherscanAnswer> {
    const job = await this.verification.status(guid.slice(0, 100));
    switch (job.status) {
      case 'pending':
        return notOk(ETHERSCAN_WORDS.pending);
      case 'pass':
        return ok(ETHERSCAN_WORDS.pass);
      case 'already':
        return ok(ETHERSCAN_WORDS.already);
      case 'fail':
        return notOk(`${ETHERSCAN_WORDS.fail}. ${job.reason}`);
      default:
        return notOk(ETHERSCAN_WORDS.unknownGuid);
    }
  }

  private async getSourceCode(network: Network, address: string): Promise<EtherscanAnswer> {
    if (!isAddressLike(address)) return notOk('Invalid Address format');
    const v = await this.verification.contractAt(network, address);
    if (!v) {
      return ok([
        {
          SourceCode: '',
          ABI: ETHERSCAN_WORDS.notVerified,
          ContractName: '',
          CompilerVersion: '',
          OptimizationUsed: '',
          Runs: '',
          ConstructorArguments: '',
          EVMVersion: 'Default',
          Library: '',
          LicenseType: 'Unknown',
          Proxy: '0',
          Implementation: '',
          SwarmSource: '',
        },
      ]);
    }
    return ok([sourceCodeItem(v)]);
  }

  private async getAbi(network: Network, address: string): Promise<EtherscanAnswer> {
    if (!isAddressLike(address)) return notOk('Invalid Address format');
    const v = await this.verification.contractAt(network, address);
    return v ? ok(JSON.stringify(v.abi)) : notOk(ETHERSCAN_WORDS.notVerified);
  }

  private async getContractCreation(network: Network, list: string): Promise<EtherscanAnswer> {
    const addresses = list.split(',').map((a) => a.trim());
    if (addresses.length === 0 || addresses.length > 5 || !addresses.every(isAddressLike)) {
      return notOk('contractaddresses must be 1 to 5 addresses separated by commas');
    }
    const found = [];
    for (const address of addresses) {
      const creation = await this.verification.creationOf(network, checksum(address));
      if (creation) {
        found.push({
          contractAddress: address.toLowerCase(),
          contractCreator: creation.creator.toLowerCase(),
          txHash: creation.txHash,
        });
      }
    }
    return found.length > 0 ? ok(found) : notOk(ETHERSCAN_WORDS.noRecords, 'No data found');
  }

  private async balances(network: Network, list: string, multi: boolean, tag = 'latest'): Promise<EtherscanAnswer> {
    const addresses = list.split(',').map((a) => a.trim());
    if (!multi && addresses.length !== 1) return notOk('Invalid Address format');
    if (addresses.length > MAX_BALANCEMULTI) return notOk(`At most ${MAX_BALANCEMULTI} addresses`);
    if (!addresses.every(isAddressLike)) return notOk('Invalid Address format');
    const block = tag === 'latest' || tag === '' ? 'latest' : tag;
    if (block !== 'latest' && block !== 'earliest' && block !== 'pending' && !/^0x[0-9a-fA-F]{1,16}$/.test(block)) {
      return notOk('tag must be latest or a block number in hex');
    }
    const values = await Promise.all(
      addresses.map(async (a) =>
        BigInt(await this.reader.call<string>(network, 'eth_getBalance', [a, block])).toString(),
      ),
    );
    if (!multi) return ok(values[0]);
    return ok(addresses.map((account, i) => ({ account, balance: values[i] })));
  }

  private async txlist(network: Network, p: Params): Promise<EtherscanAnswer> {
    const address = p.address ?? '';
    if (!isAddressLike(address)) return notOk('Invalid Address format');
    const start = wholeNumber(p.startblock, 0);
    const end = wholeNumber(p.endblock, Number.MAX_SAFE_INTEGER);
    const page = wholeNumber(p.page, 1);
    const offset = wholeNumber(p.offset, MAX_OFFSET);
    if ([start, end, page, offset].some((n) => n === null) || page! < 1 || offset! < 1) {
      return notOk('startblock, endblock, page and offset must be whole numbers');
    }
    if (page! * offset! > MAX_OFFSET) {
      return notOk(`Result window is too large, PageNo x Offset size must be less than or equal to ${MAX_OFFSET}`);
    }
    const sort = p.sort === 'desc' ? 'DESC' : 'ASC';
    const self = address.toLowerCase();
    const rows = await accountTransactions(this.ds, network, {
      address: self,
      start: start!,
      end: end!,
      sort,
      limit: offset!,
      skip: (page! - 1) * offset!,
    });
    if (rows.length === 0) return notOk([], ETHERSCAN_WORDS.noTransactions);
    const targets = [...new Set(rows.map((r) => r.to_address as string | null).filter((t): t is string => t !== null))];
    const abis = await this.verifiedAbis(network, targets);
    return ok(
      rows.map((r) => {
        const input = r.input as string;
        const methodId = input.length >= 10 ? input.slice(0, 10) : '0x';
        const abi = r.to_address ? abis.get(r.to_address as string) : undefined;
        return {
          blockNumber: String(r.block_number),
          timeStamp: String(r.timestamp),
          hash: r.hash,
          nonce: String(r.nonce),
          blockHash: (r.block_hash as string | null) ?? '',
          transactionIndex: String(r.transaction_index),
          from: r.from_address,
          to: (r.to_address as string | null) ?? '',
          value: String(r.value),
          gas: String(r.gas_limit),
          gasPrice: String(r.gas_price),
          isError: Number(r.status) === 1 ? '0' : '1',
          txreceipt_status: String(r.status),
          input,
          contractAddress: (r.contract_address as string | null) ?? '',
          cumulativeGasUsed: String(r.cumulative_gas_used ?? r.gas_used),
          gasUsed: String(r.gas_used),
          confirmations: String(Math.max(0, Number(r.head ?? r.block_number) - Number(r.block_number) + 1)),
          methodId,
          functionName: abi && methodId !== '0x' ? functionSignature(abi, methodId) : '',
        };
      }),
    );
  }

  /**
   * tokentx, tokennfttx and token1155tx (docs/api.md, "Tokens"): an address's (or a token's)
   * transfers of one standard from the token index, with Etherscan's item fields.
   */
  private async tokenTransfers(network: Network, p: Params, type: TokenType): Promise<EtherscanAnswer> {
    if (!this.tokens) return notOk('Error! Missing Or invalid Module name / Action name');
    const address = p.address ?? '';
    const token = p.contractaddress ?? '';
    if (address !== '' && !isAddressLike(address)) return notOk('Invalid Address format');
    if (token !== '' && !isAddressLike(token)) return notOk('Invalid contractaddress format');
    if (address === '' && token === '') return notOk('Error! Missing address or contractaddress');
    const start = wholeNumber(p.startblock, 0);
    const end = wholeNumber(p.endblock, Number.MAX_SAFE_INTEGER);
    const page = wholeNumber(p.page, 1);
    const offset = wholeNumber(p.offset, MAX_OFFSET);
    if ([start, end, page, offset].some((n) => n === null) || page! < 1 || offset! < 1) {
      return notOk('startblock, endblock, page and offset must be whole numbers');
    }
    if (page! * offset! > MAX_OFFSET) {
      return notOk(`Result window is too large, PageNo x Offset size must be less than or equal to ${MAX_OFFSET}`);
    }
    const found = await this.tokens.assetTransfers(network, {
      fromBlock: start!,
      toBlock: end!,
      from: null,
      to: null,
      party: address || null,
      tokens: token ? [token] : null,
      types: [type],
      order: p.sort === 'desc' ? 'desc' : 'asc',
      after: null,
      limit: offset!,
      skip: (page! - 1) * offset!,
    });
    if (found.length === 0) return notOk([], ETHERSCAN_WORDS.noTransactions);
    const hashes = [...new Set(found.map((f) => f.item.transactionHash.toLowerCase()))];
    const txs = await transactionsByHash(this.ds, network, hashes);
    const byHash = new Map(txs.map((t) => [String(t.hash).toLowerCase(), t]));
    return ok(
      found.map(({ item }) => {
        const tx = byHash.get(item.transactionHash.toLowerCase());
        const common = {
          blockNumber: String(item.blockNumber),
          timeStamp: String(item.timestamp),
          hash: item.transactionHash,
          nonce: tx ? String(tx.nonce) : '',
          blockHash: (tx?.block_hash as string | null | undefined) ?? '',
          from: item.from.toLowerCase(),
          contractAddress: item.token.address.toLowerCase(),
          to: item.to.toLowerCase(),
        };
        const rest = {
          transactionIndex: tx ? String(tx.transaction_index) : '',
          gas: tx ? String(tx.gas_limit) : '',
          gasPrice: tx ? String(tx.gas_price) : '',
          gasUsed: tx ? String(tx.gas_used) : '',
          cumulativeGasUsed: tx ? String(tx.cumulative_gas_used ?? tx.gas_used) : '',
          input: 'deprecated',
          confirmations: tx ? String(Math.max(0, Number(tx.head ?? item.blockNumber) - item.blockNumber + 1)) : '',
        };
        const name = item.token.name ?? '';
        const symbol = item.token.symbol ?? '';
        if (type === 'ERC-20') {
          return {
            ...common,
            value: item.value ?? '0',
            tokenName: name,
            tokenSymbol: symbol,
            tokenDecimal: item.token.decimals === null ? '' : String(item.token.decimals),
            ...rest,
          };
        }
        if (type === 'ERC-721') {
          return {
            ...common,
            tokenID: item.tokenId ?? '',
            tokenName: name,
            tokenSymbol: symbol,
            tokenDecimal: '0',
            ...rest,
          };
        }
        return {
          ...common,
          tokenID: item.tokenId ?? '',
          tokenValue: item.value ?? '0',
          tokenName: name,
          tokenSymbol: symbol,
          ...rest,
        };
      }),
    );
  }

  /** tokenbalance: an ERC-20 balance from the index, a decimal string (0 when none is held). */
  private async tokenBalance(network: Network, p: Params): Promise<EtherscanAnswer> {
    if (!this.tokens) return notOk('Error! Missing Or invalid Module name / Action name');
    const address = p.address ?? '';
    const token = p.contractaddress ?? '';
    if (!isAddressLike(address)) return notOk('Invalid Address format');
    if (!isAddressLike(token)) return notOk('Invalid contractaddress format');
    const [balance] = await this.tokens.erc20Balances(network, address, [token]);
    return ok(balance?.value ?? '0');
  }

  /** tokenlist (Blockscout's): every token an address holds, with its balance and metadata. */
  private async tokenList(network: Network, p: Params): Promise<EtherscanAnswer> {
    if (!this.tokens) return notOk('Error! Missing Or invalid Module name / Action name');
    const address = p.address ?? '';
    if (!isAddressLike(address)) return notOk('Invalid Address format');
    const { items } = await this.tokens.addressBalances(address, network as NetworkName);
    if (items.length === 0) return notOk([], ETHERSCAN_WORDS.noRecords);
    const tokens = [...new Set(items.map((i) => i.token))];
    const infos = new Map(
      await Promise.all(
        tokens.map(async (t) => [t, (await this.tokens!.token(t, network as NetworkName)).token] as const),
      ),
    );
    return ok(
      items.map((i) => {
        const info = infos.get(i.token);
        return {
          balance: i.value,
          contractAddress: i.token.toLowerCase(),
          decimals: info?.decimals === null || info?.decimals === undefined ? '' : String(info.decimals),
          name: info?.name ?? '',
          symbol: info?.symbol ?? '',
          type: info?.type ?? '',
          ...(i.tokenId === null ? {} : { id: i.tokenId }),
        };
      }),
    );
  }

  /** stats/tokensupply: the token's totalSupply as read from the contract, a decimal string. */
  private async tokenSupply(network: Network, p: Params): Promise<EtherscanAnswer> {
    if (!this.tokens) return notOk('Error! Missing Or invalid Module name / Action name');
    const token = p.contractaddress ?? '';
    if (!isAddressLike(token)) return notOk('Invalid contractaddress format');
    const { token: info } = await this.tokens.token(token, network as NetworkName);
    return ok(info?.totalSupply ?? '0');
  }

  /** Verified ABIs of the given lowercase addresses. */
  private async verifiedAbis(network: Network, addresses: string[]): Promise<Map<string, unknown[]>> {
    if (addresses.length === 0) return new Map();
    const rows: Row[] = await this.ds.query(
      `SELECT lower(address) AS address, abi FROM verified_contracts WHERE network = $1 AND lower(address) = ANY($2::text[])`,
      [network, addresses],
    );
    return new Map(rows.map((r) => [r.address as string, r.abi as unknown[]]));
  }

  private async blockByTime(network: Network, p: Params): Promise<EtherscanAnswer> {
    const timestamp = wholeNumber(p.timestamp, -1);
    if (timestamp === null || timestamp < 0) return notOk('Invalid timestamp');
    const before = (p.closest ?? 'before') !== 'after';
    const number = await closestBlock(this.ds, network, timestamp, before);
    return number !== undefined ? ok(String(number)) : notOk('Error! No closest block found');
  }

  private async getLogs(network: Network, p: Params): Promise<EtherscanAnswer> {
    const head = await this.reader.headNumber(network);
    const from = p.fromBlock === undefined || p.fromBlock === 'latest' ? head : wholeNumber(p.fromBlock, 0);
    const to = p.toBlock === undefined || p.toBlock === 'latest' ? head : wholeNumber(p.toBlock, head);
    if (from === null || to === null || from > to)
      return notOk('fromBlock and toBlock must be block numbers, fromBlock first');
    if (to - from + 1 > MAX_LOG_BLOCKS) return notOk(`At most ${MAX_LOG_BLOCKS} blocks per request`);
    if (p.address !== undefined && !isAddressLike(p.address)) return notOk('Invalid Address format');
    const topics: Array<string | null> = [];
    for (const i of [0, 1, 2, 3]) {
      const t = p[`topic${i}`];
      if (t !== undefined && !/^0x[0-9a-fA-F]{64}$/.test(t)) return notOk(`topic${i} must be 32 bytes of hex`);
      topics.push(t?.toLowerCase() ?? null);
    }
    // The and/or operators between topics: only `and` (the node's own filter) is supported.
    for (const [k, v] of Object.entries(p)) {
      if (/^topic\d_\d_opr$/.test(k) && v !== 'and') return notOk('only the "and" topic operator is supported');
    }
    while (topics.length > 0 && topics[topics.length - 1] === null) topics.pop();
    const logs = await this.reader.call<Array<Record<string, unknown>>>(network, 'eth_getLogs', [
      {
        fromBlock: `0x${from.toString(16)}`,
        toBlock: `0x${to.toString(16)}`,
        ...(p.address ? { address: p.address } : {}),
        ...(topics.length > 0 ? { topics } : {}),
      },
    ]);
    if (logs.length === 0) return notOk([], ETHERSCAN_WORDS.noRecords);
    const limited = logs.slice(0, MAX_LOG_RECORDS);
    const numbers = [...new Set(limited.map((l) => Number(BigInt(l.blockNumber as string))))];
    const stamps = await blockTimestamps(this.ds, network, numbers);
    const timeOf = new Map(stamps.map((s) => [Number(s.number), Number(s.timestamp)]));
    return ok(
      limited.map((l) => {
        const n = Number(BigInt(l.blockNumber as string));
        return {
          address: l.address,
          topics: l.topics,
          data: l.data,
          blockNumber: l.blockNumber,
          blockHash: l.blockHash,
          timeStamp: timeOf.has(n) ? `0x${timeOf.get(n)!.toString(16)}` : '',
          gasPrice: '',
          gasUsed: '',
          logIndex: l.logIndex,
          transactionHash: l.transactionHash,
          transactionIndex: l.transactionIndex,
        };
      }),
    );
  }

  /** module=proxy: JSON-RPC's shape `{jsonrpc, id, result}`, as Etherscan's proxy module answers. */
  private async proxy(network: Network, p: Params): Promise<EtherscanAnswer> {
    const action = p.action ?? '';
    if (!PROXY_METHODS.has(action)) return notOk('Error! Missing Or invalid Action name');
    const params = proxyParams(action, p);
    if (typeof params === 'string') {
      return { status: 200, body: { jsonrpc: '2.0', id: 1, error: { code: -32602, message: params } } };
    }
    const id = p.id !== undefined && /^\d{1,15}$/.test(p.id) ? Number(p.id) : 1;
    try {
      const result = await this.reader.call<unknown>(network, action, params, { attempts: 1 });
      return { status: 200, body: { jsonrpc: '2.0', id, result } };
    } catch (err) {
      const message = isAppError(err) ? err.message : 'the node could not answer';
      return { status: 200, body: { jsonrpc: '2.0', id, error: { code: -32000, message } } };
    }
  }
}

const HEX = /^0x[0-9a-fA-F]*$/;
const TAG = /^(latest|earliest|pending|0x[0-9a-fA-F]{1,16})$/;
const HASH = /^0x[0-9a-fA-F]{64}$/;

/** The JSON-RPC params of a proxy action, or why they are wrong. */
function proxyParams(action: string, p: Params): unknown[] | string {
  switch (action) {
    case 'eth_blockNumber':
      return [];
    case 'eth_getBlockByNumber':
      if (!TAG.test(p.tag ?? '')) return 'tag must be latest or a hex block number';
      return [p.tag, p.boolean === 'true'];
    case 'eth_getTransactionByHash':
    case 'eth_getTransactionReceipt':
      if (!HASH.test(p.txhash ?? '')) return 'txhash must be 32 bytes of hex';
      return [p.txhash];
    case 'eth_getCode':
      if (!isAddressLike(p.address ?? '')) return 'address must be 20 bytes of hex';
      if (!TAG.test(p.tag ?? 'latest')) return 'tag must be latest or a hex block number';
      return [p.address, p.tag ?? 'latest'];
    case 'eth_call':
      if (!isAddressLike(p.to ?? '')) return 'to must be 20 bytes of hex';
      if (!HEX.test(p.data ?? '0x')) return 'data must be hex';
      if (!TAG.test(p.tag ?? 'latest')) return 'tag must be latest or a hex block number';
      return [{ to: p.to, data: p.data ?? '0x' }, p.tag ?? 'latest'];
    default:
      return 'unsupported action';
  }
}

/** A decimal whole number, `fallback` when absent, null when malformed. */
function wholeNumber(value: string | undefined, fallback: number): number | null {
  if (value === undefined || value === '') return fallback;
  if (!/^\d{1,16}$/.test(value)) return null;
  const n = Number(value);
  return Number.isSafeInteger(n) ? n : null;
}

/** Etherscan's functionName: `transfer(address to, uint256 amount)`; empty when unknown. */
function functionSignature(abi: unknown[], selector: string): string {
  try {
    const fn = new Interface(abi as InterfaceAbi).getFunction(selector);
    if (!fn) return '';
    return `${fn.name}(${fn.inputs.map((i) => (i.name ? `${i.type} ${i.name}` : i.type)).join(', ')})`;
  } catch {
    return '';
  }
}

/** getsourcecode's item (Etherscan's field names and string values). */
function sourceCodeItem(v: VerifiedContract): Record<string, string> {
  const files = Object.keys(v.sources);
  const sourceCode =
    v.standardJson !== null
      ? `{${v.standardJson}}`
      : files.length === 1
        ? v.sources[files[0]!]!
        : `{${JSON.stringify({ language: 'Solidity', sources: Object.fromEntries(files.map((f) => [f, { content: v.sources[f] }])) })}}`;
  return {
    SourceCode: sourceCode,
    ABI: JSON.stringify(v.abi),
    ContractName: v.name,
    CompilerVersion: v.compilerVersion,
    OptimizationUsed: v.optimizer.enabled ? '1' : '0',
    Runs: String(v.optimizer.runs),
    ConstructorArguments: v.constructorArgs,
    EVMVersion: v.evmVersion === 'default' ? 'Default' : v.evmVersion,
    Library: '',
    LicenseType: v.licenseType ?? '',
    Proxy: '0',
    Implementation: '',
    SwarmSource: '',
  };
}
