import { Metrics } from './metrics';

describe('Metrics: background work and nodes', () => {
  it('serves index lag, webhook backlog and per-node exchanges, read at each scrape', async () => {
    const metrics = new Metrics();
    let lag: Record<string, number | null> = { testnet: 3, mainnet: null };
    let backlogReads = 0;
    metrics.observeBackgroundWork({
      indexLag: async () => lag,
      webhookBacklog: async () => {
        backlogReads++;
        return { pending: 7, oldestPendingSeconds: 12.5 };
      },
    });
    metrics.nodeExchange('testnet', '127.0.0.1:8545', 0.002, false);
    metrics.nodeExchange('testnet', '127.0.0.1:8545', 0.3, true);

    const text = await metrics.registry.metrics();
    expect(text).toMatch(/^explorer_index_lag_blocks\{network="testnet"\} 3$/m);
    expect(text).not.toMatch(/explorer_index_lag_blocks\{network="mainnet"\}/);
    expect(text).toMatch(/^webhook_deliveries_pending 7$/m);
    expect(text).toMatch(/^webhook_oldest_pending_seconds 12.5$/m);
    expect(backlogReads).toBe(1);
    expect(text).toMatch(/^rpc_node_request_duration_seconds_count\{network="testnet",host="127.0.0.1:8545"\} 2$/m);
    expect(text).toMatch(/^rpc_node_errors_total\{network="testnet",host="127.0.0.1:8545"\} 1$/m);

    lag = { testnet: 0, mainnet: 1 };
    const next = await metrics.registry.metrics();
    expect(next).toMatch(/^explorer_index_lag_blocks\{network="testnet"\} 0$/m);
    expect(next).toMatch(/^explorer_index_lag_blocks\{network="mainnet"\} 1$/m);
  });

  it('leaves out the lag and shows the backlog as NaN when a source fails, instead of failing the scrape', async () => {
    const metrics = new Metrics();
    metrics.observeBackgroundWork({
      indexLag: () => Promise.reject(new Error('database away')),
      webhookBacklog: () => Promise.reject(new Error('database away')),
    });
    const text = await metrics.registry.metrics();
    expect(text).not.toMatch(/^explorer_index_lag_blocks\{/m);
    expect(text).toMatch(/^webhook_deliveries_pending Nan$/m);
    expect(text).toMatch(/^process_cpu_user_seconds_total/m);
  });

  it('serves each compile lane’s waiting and running compiles', async () => {
    const metrics = new Metrics();
    metrics.observeCompileLanes(['developer', 'anonymous'], (lane) =>
      lane === 'developer' ? { running: 1, waiting: 0 } : { running: 2, waiting: 5 },
    );
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/^compile_queue_depth\{lane="developer"\} 0$/m);
    expect(text).toMatch(/^compile_queue_depth\{lane="anonymous"\} 5$/m);
    expect(text).toMatch(/^compile_running\{lane="anonymous"\} 2$/m);
  });
});
