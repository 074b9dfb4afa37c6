import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { Logger } from '../kernel/logger';

/** Private key of anvil's dev account #0 (default mnemonic "test test ... junk"), funded with 10000 ETH. */
export const LOCAL_NODE_FUNDED_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

export interface LocalNode {
  url: string;
  chainId: number;
  pid: number;
  /** Ends the node (SIGTERM, SIGKILL after 3 s); resolves once the process has exited. */
  stop(): Promise<void>;
}

export interface LocalNodeOptions {
  chainId: number;
  /** Omitted or 0: the node picks a free port. */
  port?: number;
  /** Seconds between blocks (interval mining). */
  blockTime: number;
  logger: Logger;
  /** When given, the chain is kept in `<stateDir>/anvil-<chainId>.json` across restarts. */
  stateDir?: string;
  /** A free-gas network as Besu and GoQuorum run them: berlin (no base fee, legacy only), gas price 0. */
  freeGas?: boolean;
}

const READY_TIMEOUT_MS = 15_000;
const KILL_GRACE_MS = 3_000;
/** How often anvil writes its state file, so that a crash loses at most this many seconds of chain. */
const STATE_DUMP_INTERVAL_S = 10;
const STDERR_TAIL_LINES = 20;

/** Nodes still running; ended when this process exits so they never outlive it. */
const runningNodes = new Set<ChildProcess>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    // Only synchronous work is possible here; SIGTERM still lets anvil write its state file.
    for (const child of runningNodes) child.kill('SIGTERM');
  });
}

/** Path of the anvil binary of the platform package, so that signals reach anvil itself and not a Node wrapper. */
function anvilBinary(): string {
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  const executable = process.platform === 'win32' ? 'anvil.exe' : 'anvil';
  try {
    const manifest = require.resolve(`@foundry-rs/anvil-${process.platform}-${arch}/package.json`);
    const binary = path.join(path.dirname(manifest), 'bin', executable);
    if (existsSync(binary)) return binary;
  } catch {
    // Platform package not installed: fall back to an anvil on PATH.
  }
  return executable;
}

/** Asks the node for its chain id; undefined while it does not answer. */
async function queryChainId(url: string): Promise<number | undefined> {
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      signal: AbortSignal.timeout(1_000),
    });
    if (!response.ok) return undefined;
    const body = (await response.json()) as { result?: string };
    return typeof body.result === 'string' ? Number(BigInt(body.result)) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * On Linux, util-linux's setpriv makes the kernel send SIGTERM to anvil when this process dies in a
 * way that skips the 'exit' event (SIGKILL, a crash); it then execs anvil, so the pid stays anvil's.
 */
function parentDeathWrapper(): string[] {
  if (process.platform !== 'linux') return [];
  const setpriv = ['/usr/bin/setpriv', '/bin/setpriv'].find((candidate) => existsSync(candidate));
  return setpriv !== undefined ? [setpriv, '--pdeathsig', 'TERM'] : [];
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Starts a local anvil node that behaves like the real network (paris: no PUSH0) and waits until it answers. */
export async function startLocalNode(opts: LocalNodeOptions): Promise<LocalNode> {
  const { chainId, blockTime, logger } = opts;
  const log = logger.child({ component: 'local-node', chainId });
  const flags: Array<[string, string]> = [
    ['--chain-id', String(chainId)],
    ['--hardfork', opts.freeGas ? 'berlin' : 'paris'],
    ['--block-time', String(blockTime)],
    ['--host', '127.0.0.1'],
    // anvil 1.7 binds port 0 to a free port and prints it in its "Listening on" line: no race with other processes.
    ['--port', String(opts.port ?? 0)],
    ['--color', 'never'],
  ];
  if (opts.freeGas) flags.push(['--gas-price', '0'], ['--base-fee', '0']);
  if (opts.stateDir !== undefined) {
    mkdirSync(opts.stateDir, { recursive: true });
    const stateFile = path.join(opts.stateDir, `anvil-${chainId}.json`);
    flags.push(['--state', stateFile], ['--state-interval', String(STATE_DUMP_INTERVAL_S)]);
  }

  const [command, ...commandArgs] = [...parentDeathWrapper(), anvilBinary(), ...flags.flat()];
  const child = spawn(command!, commandArgs, { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  runningNodes.add(child);
  installExitHook();

  let exitDescription: string | undefined;
  child.once('exit', (code, signal) => {
    runningNodes.delete(child);
    exitDescription = signal !== null ? `signal ${signal}` : `exit code ${code}`;
    log.debug({ code, signal }, 'anvil exited');
  });
  let spawnError: Error | undefined;
  child.once('error', (err) => {
    spawnError = err;
    runningNodes.delete(child);
  });

  let listeningPort: number | undefined;
  const stderrTail: string[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const listening = /^Listening on [^\s]+:(\d+)\s*$/.exec(line);
    if (listening) listeningPort = Number(listening[1]);
    // Per-block announcements would flood debug logs every blockTime seconds.
    if (/^\s*Block (Number|Hash|Time):/.test(line)) log.trace(line.trim());
    else if (line.trim() !== '') log.debug(line);
  });
  createInterface({ input: child.stderr! }).on('line', (line) => {
    stderrTail.push(line);
    if (stderrTail.length > STDERR_TAIL_LINES) stderrTail.shift();
    log.debug(line);
  });

  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null || spawnError) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), KILL_GRACE_MS);
    await exited;
    clearTimeout(timer);
  };

  const fail = async (reason: string): Promise<never> => {
    await stop();
    const stderr = stderrTail.length > 0 ? `: ${stderrTail.join(' | ')}` : '';
    throw new Error(`Local anvil node for chain ${chainId} did not start (${reason})${stderr}`);
  };

  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (spawnError) return fail(`cannot run anvil: ${spawnError.message}`);
    if (exitDescription !== undefined) return fail(`anvil stopped with ${exitDescription}`);
    if (Date.now() > deadline) {
      return fail(`no answer to eth_chainId within ${READY_TIMEOUT_MS / 1000} s`);
    }
    if (listeningPort !== undefined) {
      const url = `http://127.0.0.1:${listeningPort}`;
      const reported = await queryChainId(url);
      if (reported !== undefined) {
        if (reported !== chainId) return fail(`it reports chain id ${reported}`);
        log.info({ port: listeningPort, pid: child.pid, blockTime }, 'local anvil node started');
        return { url, chainId, pid: child.pid!, stop };
      }
    }
    await sleep(100);
  }
}
