import { AppError } from '../kernel/errors/app-error';
import { applyFeeOverrides, applyFeePolicy, type FeeFields, type NodeFees } from './fee-policy';

const london: NodeFees = { gasPrice: 1_000_000_000n, maxFeePerGas: 2_000_000_100n, maxPriorityFeePerGas: 100n };
const berlin: NodeFees = { gasPrice: 0n, maxFeePerGas: null, maxPriorityFeePerGas: null };

describe('applyFeePolicy', () => {
  it('auto: EIP-1559 when the latest block has a base fee, legacy otherwise', () => {
    expect(applyFeePolicy('testnet', { mode: 'auto' }, london)).toEqual({
      type: 2,
      maxFeePerGas: 2_000_000_100n,
      maxPriorityFeePerGas: 100n,
    });
    expect(applyFeePolicy('testnet', { mode: 'auto' }, berlin)).toEqual({ type: 0, gasPrice: 0n });
  });

  it('legacy: GAS_PRICE_WEI is the fixed price, 0 on free-gas networks', () => {
    expect(applyFeePolicy('testnet', { mode: 'legacy', gasPriceWei: 0n }, london)).toEqual({ type: 0, gasPrice: 0n });
    expect(applyFeePolicy('testnet', { mode: 'legacy', gasPriceWei: 1000n }, berlin)).toEqual({
      type: 0,
      gasPrice: 1000n,
    });
    expect(applyFeePolicy('testnet', { mode: 'legacy' }, london)).toEqual({ type: 0, gasPrice: 1_000_000_000n });
  });

  it('eip1559: GAS_PRICE_WEI is the minimum tip and fee cap (Besu --min-gas-price)', () => {
    const fees = applyFeePolicy('testnet', { mode: 'eip1559', gasPriceWei: 5_000_000_000n }, london);
    expect(fees).toEqual({ type: 2, maxPriorityFeePerGas: 5_000_000_000n, maxFeePerGas: 7_000_000_000n });
  });

  it('eip1559 on a network without a base fee is 503 with a reason', () => {
    expect(() => applyFeePolicy('testnet', { mode: 'eip1559' }, berlin)).toThrow(AppError);
  });

  it('MAX_FEE_PER_GAS_WEI caps the fee cap, and a network needing more is 503 NETWORK_UNAVAILABLE', () => {
    expect(applyFeePolicy('testnet', { mode: 'auto', maxFeePerGasWei: 1_500_000_000n }, london)).toEqual({
      type: 2,
      maxFeePerGas: 1_500_000_000n,
      maxPriorityFeePerGas: 100n,
    });
    let err: unknown;
    try {
      applyFeePolicy('testnet', { mode: 'auto', maxFeePerGasWei: 999_999_999n }, london);
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ code: 'NETWORK_UNAVAILABLE', details: { reason: 'fee above the configured maximum' } });
    expect(() => applyFeePolicy('testnet', { mode: 'legacy', gasPriceWei: 10n, maxFeePerGasWei: 9n }, berlin)).toThrow(
      /above this service's limit/,
    );
  });

  it('a replacement outbids the transaction it replaces', () => {
    expect(applyFeePolicy('testnet', { mode: 'auto' }, london, { feeCap: 3_000_000_000n, tip: 200n })).toEqual({
      type: 2,
      maxFeePerGas: 3_000_000_000n,
      maxPriorityFeePerGas: 200n,
    });
    expect(applyFeePolicy('testnet', { mode: 'auto' }, berlin, { feeCap: 12n, tip: 12n })).toEqual({
      type: 0,
      gasPrice: 12n,
    });
  });

  it('a replacement that would have to offer more than MAX_FEE_PER_GAS_WEI is 503, not clamped under its floor', () => {
    const policy = { mode: 'auto' as const, maxFeePerGasWei: 3_000_000_000n };
    expect(applyFeePolicy('testnet', policy, london, { feeCap: 3_000_000_000n, tip: 200n })).toMatchObject({
      maxFeePerGas: 3_000_000_000n,
    });
    for (const node of [london, berlin]) {
      expect(() => applyFeePolicy('testnet', policy, node, { feeCap: 3_000_000_001n, tip: 200n })).toThrow(
        /asks 3000000001 wei per gas, above this service's limit of 3000000000/,
      );
    }
  });
});

describe('applyFeeOverrides', () => {
  const policy = { mode: 'auto' as const, gasPriceWei: 1_000n, maxFeePerGasWei: 10_000n };
  const base = { type: 2 as const, maxFeePerGas: 5_000n, maxPriorityFeePerGas: 1_000n };
  const refusal = (overrides: Parameters<typeof applyFeeOverrides>[3], fees: FeeFields = base) => {
    try {
      applyFeeOverrides('testnet', policy, fees, overrides);
    } catch (e) {
      const err = e as AppError;
      return { code: err.code, details: err.details };
    }
    return undefined;
  };

  it('signs what is asked within the network’s bounds: a legacy price, or EIP-1559 fees (the tip never above the cap)', () => {
    expect(applyFeeOverrides('testnet', policy, base, {})).toBe(base);
    expect(applyFeeOverrides('testnet', policy, base, { gasPrice: 2_000n })).toEqual({ type: 0, gasPrice: 2_000n });
    expect(applyFeeOverrides('testnet', policy, base, { maxFeePerGas: 10_000n, maxPriorityFeePerGas: 1_500n })).toEqual(
      { type: 2, maxFeePerGas: 10_000n, maxPriorityFeePerGas: 1_500n },
    );
    expect(applyFeeOverrides('testnet', policy, base, { maxPriorityFeePerGas: 3_000n })).toEqual({
      type: 2,
      maxFeePerGas: 5_000n,
      maxPriorityFeePerGas: 3_000n,
    });
  });

  it('refuses a price below GAS_PRICE_WEI or above MAX_FEE_PER_GAS_WEI, naming the field and the bound', () => {
    expect(refusal({ gasPrice: 999n })).toEqual({
      code: 'INVALID_ARGUMENT',
      details: { field: 'gasPrice', minimumWei: '1000' },
    });
    expect(refusal({ maxFeePerGas: 10_001n })).toEqual({
      code: 'INVALID_ARGUMENT',
      details: { field: 'maxFeePerGas', maxFeePerGasWei: '10000' },
    });
    expect(refusal({ maxFeePerGas: 5_000n, maxPriorityFeePerGas: 999n })).toEqual({
      code: 'INVALID_ARGUMENT',
      details: { field: 'maxPriorityFeePerGas', minimumWei: '1000' },
    });
  });

  it('refuses contradictory fields and EIP-1559 fields on a legacy-priced network', () => {
    expect(refusal({ gasPrice: 2_000n, maxFeePerGas: 3_000n })).toEqual({
      code: 'VALIDATION_FAILED',
      details: { field: 'gasPrice' },
    });
    expect(refusal({ maxFeePerGas: 3_000n, maxPriorityFeePerGas: 4_000n })?.details).toEqual({
      field: 'maxPriorityFeePerGas',
    });
    expect(refusal({ maxFeePerGas: 3_000n }, { type: 0, gasPrice: 2_000n })?.details).toEqual({
      field: 'maxFeePerGas',
    });
  });
});
