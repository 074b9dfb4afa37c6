import { AbiCoder, getAddress, Interface } from 'ethers';
import { leastLoopHoldCpuMs } from '../../tests/kit/cpu-time';
import { AppError } from '../kernel/errors/app-error';
import { decodeRevertData } from './revert-decoder';

const coder = AbiCoder.defaultAbiCoder();
const iface = new Interface(['error Owners(address[] owners)', 'error Code(uint256 n)']);

describe('revert decoder', () => {
  it('cuts an Error(string) reason, and its argument, to 4 KiB', async () => {
    const data = `0x08c379a0${coder.encode(['string'], ['é'.repeat(100_000)]).slice(2)}`;
    const revert = await decodeRevertData(data, iface);
    expect(Buffer.byteLength(revert.reason)).toBeLessThanOrEqual(4096);
    expect(revert.reason).toMatch(/^(é)+…$/);
    expect(revert.error).toEqual({ name: 'Error', signature: 'Error(string)', args: [revert.reason] });
  });

  it('refuses revert data over 256 KiB with 422 RESULT_TOO_LARGE {bytes, limit}', async () => {
    const data = `0x08c379a0${coder.encode(['string'], ['a'.repeat(300_000)]).slice(2)}`;
    const refused = await decodeRevertData(data, iface).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({
      code: 'RESULT_TOO_LARGE',
      details: { bytes: (data.length - 2) / 2, limit: 262_144 },
    });
  });

  it('decodes a custom error of 8,000 distinct addresses without holding the event loop 100 ms', async () => {
    const owners = Array.from({ length: 8000 }, (_, i) =>
      getAddress(`0x${(BigInt(i) * 0x9e3779b97f4a7c15n + 1n).toString(16).padStart(40, '0').slice(-40)}`),
    );
    const data = iface.encodeErrorResult('Owners', [owners]);
    const { result, maxHoldMs } = await leastLoopHoldCpuMs(
      (attempt) => decodeRevertData(data + '00'.repeat(attempt * 32), iface),
      100,
      {
        resolutionMs: 5,
        settleMs: 20,
      },
    );
    expect(result.error).toEqual({ name: 'Owners', signature: 'Owners(address[])', args: [owners] });
    expect(Buffer.byteLength(result.reason)).toBeLessThanOrEqual(4096);
    process.stdout.write(`revert decoder: custom error of 8,000 addresses: loop held ${maxHoldMs.toFixed(1)} ms\n`);
    expect(maxHoldMs).toBeLessThan(100);
  });

  it('answers an error that does not decode as unknown, as before', async () => {
    const revert = await decodeRevertData(`${iface.getError('Code')!.selector}00`, iface);
    expect(revert.reason).toMatch(/unknown error/);
  });
});
