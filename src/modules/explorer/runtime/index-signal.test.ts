import { IndexSignal } from './index-signal';

describe('IndexSignal', () => {
  it('wakes the waiters of the notified network only', async () => {
    const signal = new IndexSignal();
    const woken: string[] = [];
    const testnet = signal.wait('testnet', signal.version('testnet'), 10_000).then(() => woken.push('testnet'));
    const mainnet = signal.wait('mainnet', signal.version('mainnet'), 50).then(() => woken.push('mainnet'));
    signal.notify('testnet');
    await testnet;
    expect(woken).toEqual(['testnet']);
    await mainnet; // its timeout
    expect(woken).toEqual(['testnet', 'mainnet']);
  });

  it('returns at once when a notification came between reading the version and waiting', async () => {
    const signal = new IndexSignal();
    const seen = signal.version('testnet');
    signal.notify('testnet');
    const started = Date.now();
    await signal.wait('testnet', seen, 10_000);
    expect(Date.now() - started).toBeLessThan(100);
  });

  it('ends a wait when its cancel promise settles', async () => {
    const signal = new IndexSignal();
    let cancel!: () => void;
    const cancelled = new Promise<void>((resolve) => (cancel = resolve));
    const waiting = signal.wait('testnet', signal.version('testnet'), 10_000, cancelled);
    cancel();
    await waiting;
    signal.notify('testnet'); // no waiter left to wake
  });
});
