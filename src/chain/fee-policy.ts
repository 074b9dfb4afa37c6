import type { Network } from '../kernel/network';
import { AppError } from '../kernel/errors/app-error';
import type { FeePolicy } from '../kernel/network-settings';

/** Fee fields of a transaction to sign: EIP-1559 (type 2) or legacy (type 0). */
export type FeeFields = { type: 2; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint } | { type: 0; gasPrice: bigint };

/** What the node suggests (ethers' FeeData: maxFeePerGas is set only when the latest block has a base fee). */
export interface NodeFees {
  gasPrice: bigint | null;
  maxFeePerGas: bigint | null;
  maxPriorityFeePerGas: bigint | null;
}

/** Lowest prices a replacement must offer. */
export interface FeeFloor {
  feeCap: bigint;
  tip: bigint;
}

const max = (a: bigint, b: bigint) => (a > b ? a : b);

/** The price per gas a transaction offers at most (its fee cap). */
export function feeCapOf(fees: FeeFields): bigint {
  return fees.type === 2 ? fees.maxFeePerGas : fees.gasPrice;
}

/** The tip a transaction offers (a legacy price is all tip). */
export function tipOf(fees: FeeFields): bigint {
  return fees.type === 2 ? fees.maxPriorityFeePerGas : fees.gasPrice;
}

function overCap(network: Network, needed: bigint, cap: bigint): AppError {
  return new AppError(
    'NETWORK_UNAVAILABLE',
    `The ${network} network asks ${needed} wei per gas, above this service's limit of ${cap} wei: nothing was sent`,
    {
      network,
      reason: 'fee above the configured maximum',
      requiredFeePerGasWei: needed.toString(),
      maxFeePerGasWei: cap.toString(),
    },
  );
}

/**
 * The fees to sign with, by the network's policy: `auto` is EIP-1559 when the latest block has a
 * base fee, else legacy; GAS_PRICE_WEI is the fixed legacy price, or the minimum tip and price;
 * MAX_FEE_PER_GAS_WEI caps what is offered, and a network needing more is 503 with nothing sent.
 */
export function applyFeePolicy(network: Network, policy: FeePolicy, node: NodeFees, floor?: FeeFloor): FeeFields {
  const hasBaseFee = node.maxFeePerGas !== null && node.maxPriorityFeePerGas !== null;
  const eip1559 = policy.mode === 'eip1559' || (policy.mode === 'auto' && hasBaseFee);
  const minimum = policy.gasPriceWei ?? 0n;
  const cap = policy.maxFeePerGasWei;
  if (!eip1559) {
    let price = policy.gasPriceWei ?? node.gasPrice ?? 0n;
    if (floor) price = max(price, floor.feeCap);
    if (cap !== undefined && price > cap) throw overCap(network, price, cap);
    return { type: 0, gasPrice: price };
  }
  if (!hasBaseFee) {
    throw new AppError(
      'NETWORK_UNAVAILABLE',
      `The ${network} network has no base fee: EIP-1559 transactions cannot be priced (set the fee mode to legacy or auto)`,
      { network, reason: 'EIP-1559 fee mode on a network without a base fee' },
    );
  }
  // ethers suggests maxFeePerGas = 2 × base fee + tip.
  const baseFee = (node.maxFeePerGas! - node.maxPriorityFeePerGas!) / 2n;
  let tip = max(node.maxPriorityFeePerGas!, minimum);
  let feeCap = max(2n * baseFee + tip, minimum);
  if (floor) {
    tip = max(tip, floor.tip);
    feeCap = max(feeCap, max(floor.feeCap, baseFee + tip));
  }
  if (cap !== undefined) {
    if (baseFee + tip > cap) throw overCap(network, baseFee + tip, cap);
    // A replacement's floor is what a node requires to take it: one offering less than that is
    // refused, so a floor above the cap is over it (as a legacy price is), not clamped.
    if (floor && floor.feeCap > cap) throw overCap(network, floor.feeCap, cap);
    if (feeCap > cap) feeCap = cap;
  }
  return { type: 2, maxFeePerGas: feeCap, maxPriorityFeePerGas: tip };
}

/** Fees a caller asks for one transaction (docs/api.md, "Gateway": fee overrides). */
export interface FeeOverrides {
  gasPrice?: bigint;
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
}

/**
 * The fees of `base` (the network's policy) with the caller's overrides, within the network's
 * policy: at least its minimum price (GAS_PRICE_WEI), at most its cap (MAX_FEE_PER_GAS_WEI);
 * `gasPrice` signs a legacy transaction, `maxFeePerGas`/`maxPriorityFeePerGas` an EIP-1559 one
 * (only where the network prices that way). 400 INVALID_ARGUMENT naming the field otherwise.
 */
export function applyFeeOverrides(
  network: Network,
  policy: FeePolicy,
  base: FeeFields,
  overrides: FeeOverrides,
): FeeFields {
  const minimum = policy.gasPriceWei ?? 0n;
  const cap = policy.maxFeePerGasWei;
  const invalid = (field: string, message: string, details: Record<string, string> = {}) =>
    new AppError('INVALID_ARGUMENT', message, { field, ...details });
  const within = (field: string, price: bigint) => {
    if (price < minimum) {
      throw invalid(field, `${field} ${price} is below the ${network} network's minimum of ${minimum} wei per gas`, {
        minimumWei: minimum.toString(),
      });
    }
    if (cap !== undefined && price > cap) {
      throw invalid(field, `${field} ${price} is above this service's limit of ${cap} wei per gas on ${network}`, {
        maxFeePerGasWei: cap.toString(),
      });
    }
  };
  const { gasPrice, maxFeePerGas, maxPriorityFeePerGas } = overrides;
  if (gasPrice !== undefined) {
    if (maxFeePerGas !== undefined || maxPriorityFeePerGas !== undefined) {
      throw new AppError('VALIDATION_FAILED', 'Give gasPrice or maxFeePerGas/maxPriorityFeePerGas, not both', {
        field: 'gasPrice',
      });
    }
    within('gasPrice', gasPrice);
    return { type: 0, gasPrice };
  }
  if (maxFeePerGas === undefined && maxPriorityFeePerGas === undefined) return base;
  const field = maxFeePerGas !== undefined ? 'maxFeePerGas' : 'maxPriorityFeePerGas';
  if (base.type !== 2) {
    throw invalid(field, `The ${network} network prices gas the legacy way: give gasPrice instead`);
  }
  const tip =
    maxPriorityFeePerGas ??
    (maxFeePerGas !== undefined && maxFeePerGas < base.maxPriorityFeePerGas ? maxFeePerGas : base.maxPriorityFeePerGas);
  const feeCap = maxFeePerGas ?? max(base.maxFeePerGas, tip);
  if (tip > feeCap) throw invalid('maxPriorityFeePerGas', 'maxPriorityFeePerGas may not exceed maxFeePerGas');
  within('maxPriorityFeePerGas', tip);
  within('maxFeePerGas', feeCap);
  return { type: 2, maxFeePerGas: feeCap, maxPriorityFeePerGas: tip };
}
