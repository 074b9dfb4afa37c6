import { AppError } from '../kernel/errors/app-error';
import { applyFeePolicy, type NodeFees } from './fee-policy';

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
