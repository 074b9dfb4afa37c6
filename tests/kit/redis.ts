import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { freePort } from '../../src/kernel/ports';

/** A throwaway Redis (Debian's redis-server: .ci/run installs it) on a free port, nothing kept on disk. */
export interface TestRedis {
  url: string;
  port: number;
  /** Stops it (the port stays free for start()). */
  stop(): Promise<void>;
  /** Starts it again on the same port, empty. */
  start(): Promise<void>;
  /** Freezes it (SIGSTOP): connections stay open, nothing is answered. */
  pause(): void;
  /** Lets it answer again (SIGCONT). */
  resume(): void;
}

function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let got = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('error', () => done(false));
    socket.setTimeout(1000, () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (d) => {
      got += d.toString();
      if (got.includes('\r\n')) done(got.startsWith('+PONG'));
    });
  });
}

async function launch(port: number): Promise<ChildProcess> {
  const proc = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  proc.stdout!.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-8192)));
  proc.stderr!.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-8192)));
  const until = Date.now() + 10_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`redis-server exited (${proc.exitCode}):\n${out}`);
    if (await answersPing(port)) return proc;
    if (Date.now() > until) {
      proc.kill('SIGKILL');
      throw new Error(`redis-server did not answer on port ${port}:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function halt(proc: ChildProcess | undefined): Promise<void> {
  if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  proc.kill('SIGKILL');
  await exited;
}

export async function startRedis(): Promise<TestRedis> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    let proc: ChildProcess | undefined;
    try {
      proc = await launch(port);
    } catch (e) {
      if (attempt >= 3) throw e;
      continue;
    }
    return {
      url: `redis://127.0.0.1:${port}`,
      port,
      stop: async () => {
        await halt(proc);
        proc = undefined;
      },
      start: async () => {
        await halt(proc);
        proc = await launch(port);
      },
      pause: () => proc?.kill('SIGSTOP'),
      resume: () => proc?.kill('SIGCONT'),
    };
  }
}
