import type { FeeData } from 'ethers';
import type { ChainRegistry } from '../../chain/chain-registry';
import { applyFeeOverrides, applyFeePolicy, type FeeFields } from '../../chain/fee-policy';
import type { Network } from '../../kernel/network';
import { AppError } from '../../kernel/errors/app-error';
import { translateSendError } from './send-errors';
import type { PreparedTransaction, SendRequest } from './send-request';

/**
 * Margin on estimated gas: state can change between estimate and inclusion (another transaction
 * may zero a storage slot, making the next write cost 20k instead of 5k). Unused gas is not paid.
 */
const GAS_MARGIN_PERCENT = 30n;
const GAS_MARGIN_MIN = 30_000n;

/** Fee data is shared by the sends of one network for this long (about a block). */
const FEE_DATA_TTL_MS = 1000;

/** Gas every transaction pays before running any code (yellow paper G_transaction, G_txcreate, calldata). */
export function intrinsicGas(to: string | null | undefined, data: string | undefined): bigint {
  let gas = to ? 21_000n : 53_000n;
  const bytes = Buffer.from((data ?? '0x').replace(/^0x/, ''), 'hex');
  for (const byte of bytes) gas += byte === 0 ? 4n : 16n;
  return gas;
}

/** A replacement must raise every price by at least 10% (geth, GoQuorum and Besu's price bump). */
export function bumped(price: bigint): bigint {
  return (price * 1125n) / 1000n + 1n;
}

/** The fee per gas a transaction offers at most: maxFeePerGas (EIP-1559) or gasPrice. */
export function feePerGasOf(fees: FeeFields): bigint {
  return fees.type === 2 ? fees.maxFeePerGas : fees.gasPrice;
}

/**
 * The sender's first stage: everything that can refuse a transaction before it is signed. Gas
 * (the node's estimate with a margin, or the caller's limit checked), fees by the network's policy
 * and the caller's overrides, and the wallet's balance against both.
 */
export class FeeQuote {
  private readonly feeData = new Map<Network, { at: number; data: Promise<FeeData> }>();
  private readonly balances = new Map<string, Promise<bigint>>();

  constructor(private readonly chains: ChainRegistry) {}

  /** Estimates gas, turning a revert into 422 EXECUTION_REVERTED and no money into 422 INSUFFICIENT_FUNDS. */
  async estimateGas(req: SendRequest): Promise<bigint> {
    const estimate = await this.nodeEstimate(req);
    const margin = (estimate * GAS_MARGIN_PERCENT) / 100n;
    return estimate + (margin > GAS_MARGIN_MIN ? margin : GAS_MARGIN_MIN);
  }

  /** The node's own estimate, without margin. */
  private async nodeEstimate(req: SendRequest): Promise<bigint> {
    const provider = this.chains.provider(req.network);
    try {
      return await provider.estimateGas({
        from: req.signer.address,
        to: req.to ?? undefined,
        data: req.data,
        value: req.value,
      });
    } catch (e) {
      throw await translateSendError(e, req);
    }
  }

  /**
   * A caller's gas limit below what the transaction needs would be refused or dropped by the node,
   * or revert out of gas: 400 naming both numbers, before anything is signed.
   */
  private async checkGasLimit(req: SendRequest, gasLimit: bigint): Promise<void> {
    const intrinsic = intrinsicGas(req.to, req.data);
    const needed = gasLimit < intrinsic ? intrinsic : await this.nodeEstimate(req);
    const required = needed > intrinsic ? needed : intrinsic;
    if (gasLimit < required) {
      throw new AppError(
        'INVALID_ARGUMENT',
        `gasLimit ${gasLimit} is below the ${required} gas this transaction needs`,
        { field: 'gasLimit', gasLimit: gasLimit.toString(), requiredGas: required.toString() },
      );
    }
  }

  /**
   * Everything that can refuse a transaction before it is signed: the gas estimate (a revert is
   * 422 EXECUTION_REVERTED) and the balance check (422 INSUFFICIENT_FUNDS says how much is needed).
   */
  async prepare(req: SendRequest): Promise<PreparedTransaction> {
    if (req.gasLimit !== undefined) await this.checkGasLimit(req, req.gasLimit);
    const gasLimit = req.gasLimit ?? (await this.estimateGas(req));
    return { gasLimit, fees: await this.fees(req, gasLimit) };
  }

  /** Fees of the network's policy (FEE_MODE, GAS_PRICE_WEI, MAX_FEE_PER_GAS_WEI), checked against the balance. */
  async fees(req: SendRequest, gasLimit: bigint): Promise<FeeFields> {
    const [feeData, balance] = await Promise.all([
      this.currentFeeData(req.network),
      this.currentBalance(req.network, req.signer.address),
    ]).catch(async (e: unknown) => {
      throw await translateSendError(e, req);
    });
    const policy = this.chains.feePolicy(req.network);
    const fees = applyFeeOverrides(
      req.network,
      policy,
      applyFeePolicy(req.network, policy, feeData, req.minFees),
      req.feeOverrides ?? {},
    );
    const pricePerGas = fees.type === 2 ? fees.maxFeePerGas : fees.gasPrice;
    const required = gasLimit * pricePerGas + (req.value ?? 0n);
    if (balance < required) {
      throw new AppError(
        'INSUFFICIENT_FUNDS',
        `The wallet ${req.signer.address} holds ${balance} wei but this transaction needs up to ${required} wei`,
        { address: req.signer.address, balanceWei: balance.toString(), requiredWei: required.toString() },
      );
    }
    return fees;
  }

  /** The node's fee data, one request shared by every send of the network within FEE_DATA_TTL_MS. */
  private currentFeeData(network: Network): Promise<FeeData> {
    const cached = this.feeData.get(network);
    if (cached && Date.now() - cached.at < FEE_DATA_TTL_MS) return cached.data;
    const data = this.chains.provider(network).getFeeData();
    const entry = { at: Date.now(), data };
    this.feeData.set(network, entry);
    data.catch(() => {
      if (this.feeData.get(network) === entry) this.feeData.delete(network);
    });
    return data;
  }

  /** A wallet's balance; concurrent checks of one wallet share one request (nothing is kept after it). */
  private currentBalance(network: Network, address: string): Promise<bigint> {
    const key = `${network}:${address}`;
    let balance = this.balances.get(key);
    if (!balance) {
      balance = this.chains
        .provider(network)
        .getBalance(address)
        .finally(() => this.balances.delete(key));
      this.balances.set(key, balance);
    }
    return balance;
  }
}
