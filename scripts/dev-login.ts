// Logs in to a locally running service with a development certificate and prints the token.
// Usage: npm run dev:login -- --name "Ada Lovelace" [--url http://localhost:4000] [--quiet]
import 'reflect-metadata';
import { createHash } from 'node:crypto';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/kernel/config';
import { issueCertificate, loadOrCreateDevCa, signNonce } from '../src/modules/accounts/eds/dev-ca';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      name: { type: 'string', default: 'Dev Developer' },
      url: { type: 'string' },
      quiet: { type: 'boolean', default: false },
    },
  });
  const config = loadConfig();
  const base = values.url ?? `http://localhost:${config.port}`;
  const ca = await loadOrCreateDevCa(config.dataDir);
  // The same name always maps to the same developer: serialNumber is derived from it.
  const serialNumber = `DEV${createHash('sha256').update(values.name!).digest('hex').slice(0, 12).toUpperCase()}`;
  const credential = await issueCertificate(ca, { commonName: values.name!, serialNumber });

  const post = async (path: string, body?: unknown) => {
    const res = await fetch(`${base}/api/devportal${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    }).catch((e: unknown) => {
      throw new Error(`cannot reach the service at ${base} (is it running? npm start): ${String(e)}`);
    });
    const json = (await res.json()) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- printed, not typed
    if (res.status !== 201) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(json)}`);
    return json;
  };
  const challenge = await post('/auth/eds/challenge');
  const login = await post('/auth/eds/login', {
    challengeId: challenge.challengeId,
    certificate: credential.certificatePem,
    signature: await signNonce(credential, challenge.nonce),
  });
  if (values.quiet) {
    process.stdout.write(`${login.accessToken}\n`);
    return;
  }
  process.stdout.write(
    [
      `Logged in as ${login.developer.displayName} (developer ${login.developer.id})`,
      `Custodial wallet: ${login.developer.walletAddress}`,
      `Token, valid until ${login.expiresAt}:`,
      login.accessToken,
      '',
    ].join('\n'),
  );
}

main().catch((e: unknown) => {
  process.stderr.write(`dev:login failed: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
