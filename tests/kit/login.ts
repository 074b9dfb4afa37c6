import { randomUUID } from 'node:crypto';
import {
  issueCertificate,
  signNonce,
  type DevCa,
  type DevCredential,
  type IssueOptions,
} from '../../src/modules/accounts/eds/dev-ca';
import type { Client } from './http';

export interface LoggedIn {
  token: string;
  developerId: string;
  walletAddress: string;
  credential: DevCredential;
}

/** Issues a certificate from `ca` (a fresh serialNumber unless given) for a test developer. */
export function issueDeveloperCertificate(ca: DevCa, opts: Partial<IssueOptions> = {}): Promise<DevCredential> {
  return issueCertificate(ca, {
    commonName: opts.commonName ?? 'Test Developer',
    serialNumber: opts.serialNumber ?? `IIN${randomUUID().replace(/-/g, '').slice(0, 12)}`,
    ...opts,
  });
}

/** Runs the real EDS login flow over REST: challenge, sign the nonce, login. */
export async function login(api: Client, ca: DevCa, credential?: DevCredential): Promise<LoggedIn> {
  const cred = credential ?? (await issueDeveloperCertificate(ca));
  const challenge = await api.post('/api/devportal/auth/eds/challenge');
  if (challenge.status !== 201) throw new Error(`challenge failed: ${JSON.stringify(challenge.body)}`);
  const res = await api.post('/api/devportal/auth/eds/login', {
    challengeId: challenge.body.challengeId,
    certificate: cred.certificatePem,
    signature: await signNonce(cred, challenge.body.nonce),
  });
  if (res.status !== 201) throw new Error(`login failed: ${res.status} ${JSON.stringify(res.body)}`);
  return {
    token: res.body.accessToken,
    developerId: res.body.developer.id,
    walletAddress: res.body.developer.walletAddress,
    credential: cred,
  };
}
