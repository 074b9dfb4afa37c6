import { execFileSync } from 'node:child_process';
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generatePrimeSync,
  randomBytes,
  sign,
  X509Certificate,
} from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/*
 * A test PKI made with the `openssl` command line, the way a national CA (`openssl ca`, index.txt,
 * CRLs) and a user's signing tool (`openssl dgst`, `openssl cms -sign`) make certificates and
 * signatures. Everything lives in one temporary directory; call `dispose()` when done.
 */

/** Key algorithms `openssl genpkey` makes here; huge-exponent RSA keys come from hugeExponentKey. */
export type KeySpec = 'ec-p256' | 'ec-p384' | 'rsa-1024' | 'rsa-2048' | 'rsa-3072';

export interface Credential {
  /** Short name, also the file stem in the PKI directory. */
  name: string;
  /** One-line subject as given to openssl, e.g. '/C=KZ/CN=Ada/serialNumber=IIN900101300123'. */
  subject: string;
  certPath: string;
  certPem: string;
  certDer: Buffer;
  /** Private key file (PKCS#8 PEM); absent for certificates carrying a key nobody holds. */
  keyPath: string;
  /** Hex serial number as openssl prints it. */
  serial: string;
}

/** A certificate that can issue: it has its own `openssl ca` directory (index.txt, serial, crlnumber). */
export interface Authority extends Credential {
  caDir: string;
  configPath: string;
}

export interface IssueOptions {
  /** Key to generate (default EC P-256), or the path of an existing private key. */
  key?: KeySpec | { path: string };
  /** Public key to put in the certificate instead of the signing key's (nobody holds its private key). */
  forcedPublicKeyPem?: string;
  /** basicConstraints; `true` → CA:TRUE (with pathlen when given), `false` → CA:FALSE, default by role. */
  ca?: boolean;
  pathlen?: number;
  /** keyUsage value, e.g. 'critical,digitalSignature,nonRepudiation'; null leaves it out. */
  keyUsage?: string | null;
  /** extendedKeyUsage value, e.g. 'clientAuth' or 'critical,serverAuth'. */
  extendedKeyUsage?: string;
  /** More extension lines, e.g. '1.2.3.4.5.6.7=critical,ASN1:UTF8String:x'. */
  extensions?: string[];
  /** Extra config sections the extension lines refer to (name → lines). */
  sections?: Record<string, string[]>;
  /** Explicit subjectKeyIdentifier (hex with colons); default hash of the key. */
  subjectKeyIdentifier?: string;
  notBefore?: Date;
  notAfter?: Date;
}

const DAY = 24 * 3600 * 1000;

/** openssl's YYYYMMDDHHMMSSZ. */
const opensslTime = (d: Date): string =>
  d
    .toISOString()
    .replace(/[-:T]/g, '')
    .replace(/\.\d+Z$/, 'Z');

export class OpensslPki {
  readonly dir = mkdtempSync(path.join(tmpdir(), 'openssl-pki-'));
  private counter = 0;

  /** Runs openssl in the PKI directory and returns its stdout. */
  openssl(args: string[], input?: Buffer): Buffer {
    return execFileSync('openssl', args, { cwd: this.dir, input, stdio: ['pipe', 'pipe', 'pipe'], maxBuffer: 1 << 26 });
  }

  private file(name: string, content?: string | Buffer): string {
    const p = path.join(this.dir, name);
    if (content !== undefined) writeFileSync(p, content);
    return p;
  }

  private unique(name: string): string {
    this.counter += 1;
    return `${name.replace(/[^A-Za-z0-9_-]/g, '_')}-${this.counter}`;
  }

  /** Generates a private key (PKCS#8 PEM) and returns its path. */
  generateKey(spec: KeySpec, stem = this.unique(spec)): string {
    const out = this.file(`${stem}.key`);
    const [kind, size] = spec.split('-') as [string, string];
    const opts =
      kind === 'ec'
        ? ['-algorithm', 'EC', '-pkeyopt', `ec_paramgen_curve:${size === 'p256' ? 'P-256' : 'P-384'}`]
        : ['-algorithm', 'RSA', '-pkeyopt', `rsa_keygen_bits:${size}`];
    this.openssl(['genpkey', ...opts, '-out', out]);
    return out;
  }

  /**
   * A real RSA key with a huge public exponent (e.g. 3,070 bits on a 3,072-bit modulus): primes
   * from node:crypto, the rest by BigInt arithmetic (`openssl genpkey` takes several times longer).
   */
  hugeExponentKey(modulusBits: number, exponentBits: number): string {
    const half = modulusBits / 2;
    for (;;) {
      const p = generatePrimeSync(half, { bigint: true });
      const q = generatePrimeSync(half, { bigint: true });
      const n = p * q;
      if (n.toString(2).length !== modulusBits || p === q) continue;
      const phi = (p - 1n) * (q - 1n);
      const e =
        (BigInt('0x' + randomBytes(Math.ceil(exponentBits / 8) + 1).toString('hex')) % (1n << BigInt(exponentBits))) |
        (1n << BigInt(exponentBits - 1)) |
        1n;
      const d = modInverse(e, phi);
      if (d === null) continue;
      const b64 = (v: bigint): string =>
        Buffer.from(v.toString(16).padStart(Math.ceil(v.toString(16).length / 2) * 2, '0'), 'hex').toString(
          'base64url',
        );
      const jwk = {
        kty: 'RSA',
        n: b64(n),
        e: b64(e),
        d: b64(d),
        p: b64(p),
        q: b64(q),
        dp: b64(d % (p - 1n)),
        dq: b64(d % (q - 1n)),
        qi: b64(modInverse(q, p)!),
      };
      const pem = createPrivateKey({ key: jwk, format: 'jwk' }).export({ type: 'pkcs8', format: 'pem' });
      return this.file(`${this.unique('rsa-huge-e')}.key`, pem);
    }
  }

  /**
   * An RSA public key (SPKI PEM) with a random odd modulus nobody can sign for: costs the verifier
   * a full modular exponentiation with `exponentBits` exponent all the same.
   */
  static fakeRsaPublicKey(modulusBits: number, exponentBits: number): string {
    const rnd = (bits: number): Buffer => {
      const b = randomBytes(bits / 8);
      b[0] = b[0]! | 0x80;
      b[b.length - 1] = b[b.length - 1]! | 1;
      return b;
    };
    const e = exponentBits <= 17 ? Buffer.from([1, 0, 1]) : rnd(exponentBits + ((8 - (exponentBits % 8)) % 8));
    if (exponentBits > 17 && exponentBits % 8 !== 0) e[0] = e[0]! >> (8 - (exponentBits % 8));
    const jwk = { kty: 'RSA', n: rnd(modulusBits).toString('base64url'), e: e.toString('base64url') };
    return createPublicKey({ key: jwk, format: 'jwk' }).export({ type: 'spki', format: 'pem' }).toString();
  }

  private extensionFile(opts: IssueOptions, role: 'root' | 'ca' | 'leaf'): string {
    const isCa = opts.ca ?? role !== 'leaf';
    const lines = [
      `basicConstraints=critical,CA:${isCa ? 'TRUE' : 'FALSE'}${opts.pathlen !== undefined ? `,pathlen:${opts.pathlen}` : ''}`,
    ];
    const keyUsage =
      opts.keyUsage === undefined
        ? isCa
          ? 'critical,keyCertSign,cRLSign'
          : 'critical,digitalSignature,nonRepudiation'
        : opts.keyUsage;
    if (keyUsage !== null) lines.push(`keyUsage=${keyUsage}`);
    if (opts.extendedKeyUsage) lines.push(`extendedKeyUsage=${opts.extendedKeyUsage}`);
    lines.push(`subjectKeyIdentifier=${opts.subjectKeyIdentifier ?? 'hash'}`);
    if (role !== 'root') lines.push('authorityKeyIdentifier=keyid:always');
    lines.push(...(opts.extensions ?? []));
    const sections = Object.entries(opts.sections ?? {}).map(([name, body]) => `[${name}]\n${body.join('\n')}\n`);
    return this.file(`${this.unique('ext')}.cnf`, `[ext]\n${lines.join('\n')}\n${sections.join('')}`);
  }

  private caConfig(caDir: string): string {
    return this.file(
      `${path.basename(caDir)}.cnf`,
      [
        '[ca]',
        'default_ca = ca_default',
        '[ca_default]',
        `dir = ${caDir}`,
        'database = $dir/index.txt',
        'new_certs_dir = $dir/newcerts',
        'serial = $dir/serial',
        'crlnumber = $dir/crlnumber',
        'default_md = sha256',
        'default_days = 3650',
        'default_crl_days = 7',
        'policy = policy_any',
        'unique_subject = no',
        'email_in_dn = no',
        'copy_extensions = none',
        'crl_extensions = crl_ext',
        '[policy_any]',
        ...[
          'countryName',
          'stateOrProvinceName',
          'localityName',
          'organizationName',
          'organizationalUnitName',
          'commonName',
          'serialNumber',
          'emailAddress',
          'givenName',
          'surname',
        ].map((f) => `${f} = optional`),
        '[crl_ext]',
        'authorityKeyIdentifier = keyid:always',
        '',
      ].join('\n'),
    );
  }

  private newCaDir(stem: string): { caDir: string; configPath: string } {
    const caDir = path.join(this.dir, `${stem}.ca`);
    mkdirSync(path.join(caDir, 'newcerts'), { recursive: true });
    writeFileSync(path.join(caDir, 'index.txt'), '');
    writeFileSync(path.join(caDir, 'serial'), `${randomBytes(8).toString('hex').replace(/^./, '4')}\n`);
    writeFileSync(path.join(caDir, 'crlnumber'), '01\n');
    return { caDir, configPath: this.caConfig(caDir) };
  }

  private credential(name: string, subject: string, certPath: string, keyPath: string): Credential {
    const certPem = readFileSync(certPath, 'utf8');
    const x = new X509Certificate(certPem);
    return { name, subject, certPath, certPem, certDer: x.raw, keyPath, serial: x.serialNumber };
  }

  private keyFor(opts: IssueOptions, stem: string): string {
    if (opts.key && typeof opts.key === 'object') return opts.key.path;
    return this.generateKey(opts.key ?? 'ec-p256', stem);
  }

  private dates(opts: IssueOptions): string[] {
    const now = Date.now();
    return [
      '-startdate',
      opensslTime(opts.notBefore ?? new Date(now - DAY)),
      '-enddate',
      opensslTime(opts.notAfter ?? new Date(now + 3650 * DAY)),
    ];
  }

  /** A self-signed root CA. */
  root(name: string, subject: string, opts: IssueOptions = {}): Authority {
    const stem = this.unique(name);
    const keyPath = this.keyFor(opts, stem);
    const csr = this.file(`${stem}.csr`);
    this.openssl(['req', '-new', '-key', keyPath, '-subj', subject, '-out', csr]);
    const { caDir, configPath } = this.newCaDir(stem);
    const certPath = this.file(`${stem}.pem`);
    this.openssl([
      'ca',
      '-batch',
      '-notext',
      '-preserveDN',
      '-config',
      configPath,
      '-selfsign',
      '-keyfile',
      keyPath,
      '-in',
      csr,
      '-out',
      certPath,
      '-extfile',
      this.extensionFile(opts, 'root'),
      '-extensions',
      'ext',
      ...this.dates(opts),
    ]);
    return { ...this.credential(name, subject, certPath, keyPath), caDir, configPath };
  }

  private issue(issuer: Authority, name: string, subject: string, opts: IssueOptions, role: 'ca' | 'leaf'): Credential {
    const stem = this.unique(name);
    const keyPath = this.keyFor(opts, stem);
    const csr = this.file(`${stem}.csr`);
    this.openssl(['req', '-new', '-key', keyPath, '-subj', subject, '-out', csr]);
    const certPath = this.file(`${stem}.pem`);
    const ext = this.extensionFile(opts, role);
    if (opts.forcedPublicKeyPem) {
      // `openssl ca` cannot swap the key; `openssl x509 -req -force_pubkey` can (no index entry).
      const pub = this.file(`${stem}.pub.pem`, opts.forcedPublicKeyPem);
      const days = Math.max(1, Math.ceil(((opts.notAfter?.getTime() ?? Date.now() + 3650 * DAY) - Date.now()) / DAY));
      this.openssl([
        'x509',
        '-req',
        '-in',
        csr,
        '-CA',
        issuer.certPath,
        '-CAkey',
        issuer.keyPath,
        '-force_pubkey',
        pub,
        '-set_serial',
        `0x${randomBytes(8).toString('hex').replace(/^./, '5')}`,
        '-days',
        String(days),
        '-sha256',
        '-extfile',
        ext,
        '-extensions',
        'ext',
        '-out',
        certPath,
      ]);
    } else {
      this.openssl([
        'ca',
        '-batch',
        '-notext',
        '-preserveDN',
        '-config',
        issuer.configPath,
        '-cert',
        issuer.certPath,
        '-keyfile',
        issuer.keyPath,
        '-in',
        csr,
        '-out',
        certPath,
        '-extfile',
        ext,
        '-extensions',
        'ext',
        ...this.dates(opts),
      ]);
    }
    return this.credential(name, subject, certPath, keyPath);
  }

  /** An intermediate CA (CA:TRUE unless `ca: false`) issued by `issuer`. */
  intermediate(issuer: Authority, name: string, subject: string, opts: IssueOptions = {}): Authority {
    const cred = this.issue(issuer, name, subject, opts, 'ca');
    return { ...cred, ...this.newCaDir(this.unique(`${name}-db`)) };
  }

  /** An end-entity certificate (CA:FALSE, digitalSignature+nonRepudiation unless overridden). */
  leaf(issuer: Authority, name: string, subject: string, opts: IssueOptions = {}): Credential {
    return this.issue(issuer, name, subject, opts, 'leaf');
  }

  /** Lets an end-entity (or any) certificate issue others, as an attacker holding its key would. */
  asAuthority(cred: Credential): Authority {
    return { ...cred, ...this.newCaDir(this.unique(`${cred.name}-db`)) };
  }

  /** Marks `cert` revoked in `issuer`'s database (`openssl ca -revoke`). */
  revoke(issuer: Authority, cert: Credential, reason = 'keyCompromise'): void {
    this.openssl([
      'ca',
      '-config',
      issuer.configPath,
      '-cert',
      issuer.certPath,
      '-keyfile',
      issuer.keyPath,
      '-revoke',
      cert.certPath,
      '-crl_reason',
      reason,
    ]);
  }

  /** A CRL of `issuer` (`openssl ca -gencrl`), DER. */
  crl(issuer: Authority, opts: { lastUpdate?: Date; nextUpdate?: Date } = {}): Buffer {
    const out = this.file(`${this.unique('crl')}.der`);
    const pem = this.file(`${this.unique('crl')}.pem`);
    this.openssl([
      'ca',
      '-gencrl',
      '-config',
      issuer.configPath,
      '-cert',
      issuer.certPath,
      '-keyfile',
      issuer.keyPath,
      '-crl_lastupdate',
      opensslTime(opts.lastUpdate ?? new Date(Date.now() - 3600 * 1000)),
      '-crl_nextupdate',
      opensslTime(opts.nextUpdate ?? new Date(Date.now() + 7 * DAY)),
      '-out',
      pem,
    ]);
    this.openssl(['crl', '-in', pem, '-outform', 'DER', '-out', out]);
    return readFileSync(out);
  }

  /** Raw signature over `data` as a signing tool makes it. */
  signRaw(
    signer: Credential,
    data: string | Buffer,
    mode: 'pkcs1' | 'pss-32' | 'pss-max' | 'ecdsa-der' | 'ecdsa-p1363',
  ): Buffer {
    if (mode === 'ecdsa-p1363') {
      return sign('sha256', Buffer.from(data), { key: readFileSync(signer.keyPath), dsaEncoding: 'ieee-p1363' });
    }
    const input = this.file(`${this.unique('data')}.bin`, Buffer.from(data));
    const pss = mode.startsWith('pss-')
      ? ['-sigopt', 'rsa_padding_mode:pss', '-sigopt', `rsa_pss_saltlen:${mode.slice(4)}`]
      : [];
    return this.openssl(['dgst', '-sha256', '-sign', signer.keyPath, ...pss, input]);
  }

  /** A CMS SignedData (DER) made by `openssl cms -sign` with its default signed attributes. */
  cms(
    signer: Credential,
    data: string | Buffer,
    opts: { detached?: boolean; certs?: Credential[]; extraSigners?: Credential[]; noCerts?: boolean } = {},
  ): Buffer {
    const input = this.file(`${this.unique('data')}.bin`, Buffer.from(data));
    const args = ['cms', '-sign', '-binary', '-in', input, '-signer', signer.certPath, '-inkey', signer.keyPath];
    for (const s of opts.extraSigners ?? []) args.push('-signer', s.certPath, '-inkey', s.keyPath);
    if (!opts.detached) args.push('-nodetach');
    if (opts.certs?.length) {
      args.push('-certfile', this.file(`${this.unique('chain')}.pem`, opts.certs.map((c) => c.certPem).join('')));
    }
    if (opts.noCerts) args.push('-nocerts');
    return this.openssl([...args, '-outform', 'DER', '-md', 'sha256']);
  }

  dispose(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Hex SHA-256 of a certificate's SubjectPublicKeyInfo DER (how a trust anchor is named). */
export function spkiSha256(cert: Credential): string {
  const spki = new X509Certificate(cert.certPem).publicKey.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(spki).digest('hex');
}

/** PEM of a DER certificate. */
export function derToPem(der: Buffer, label = 'CERTIFICATE'): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

function modInverse(a: bigint, m: bigint): bigint | null {
  let [oldR, r] = [((a % m) + m) % m, m];
  let [oldS, s] = [1n, 0n];
  while (r !== 0n) {
    const q = oldR / r;
    [oldR, r] = [r, oldR - q * r];
    [oldS, s] = [s, oldS - q * s];
  }
  return oldR === 1n ? ((oldS % m) + m) % m : null;
}
