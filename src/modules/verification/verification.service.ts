import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { DataSource } from 'typeorm';
import type { Network } from '../../kernel/network';
import { AppError } from '../../kernel/errors/app-error';
import { checksum, isAddressLike } from '../../kernel/address';
import type { Logger } from '../../kernel/logger';
import type { PoolOutcome, SolidityCompiler } from '../contracts';
import type { ChainReader } from '../explorer';
import { bareHex, compareCreation, compareRuntime, type ImmutableReferences, type MatchKind } from './bytecode-match';
import { compilerVersions, evmVersions, type InstalledCompiler, installedCompiler } from './compiler-set';
import { indexedCreationOf, portalRecordAt } from './verification-sources.query';

/** What a verification request states (docs/api.md, "Verification"). */
export interface VerificationRequest {
  address: string;
  /** A standard-JSON input (as a JSON text), or one Solidity file. */
  codeFormat: 'solidity-standard-json-input' | 'solidity-single-file';
  sourceCode: string;
  /** `path:Name`, or `Name` for a single file. */
  contractName: string;
  compilerVersion: string;
  /** Single file only: the standard JSON carries its own settings. */
  optimizationUsed?: boolean;
  runs?: number;
  evmVersion?: string;
  /** Hex without 0x; checked against the creation transaction when that is known. */
  constructorArguments?: string;
  licenseType?: string;
  /** Who asked (their client address key): one compile of theirs at a time, their turn in the lane. */
  client?: string;
}

/** A verified contract as the explorer and the Etherscan API show it. */
export interface VerifiedContract {
  network: Network;
  address: string;
  name: string;
  sourceFile: string;
  match: MatchKind;
  compilerVersion: string;
  evmVersion: string;
  optimizer: { enabled: boolean; runs: number };
  codeFormat: string;
  sources: Record<string, string>;
  /** The submitted standard-JSON input, when it was one. */
  standardJson: string | null;
  abi: unknown[];
  constructorArgs: string;
  licenseType: string | null;
  creationTxHash: string | null;
  creator: string | null;
  verifiedAt: Date;
}

export type JobStatus =
  | { status: 'pending' }
  | { status: 'pass' }
  | { status: 'already' }
  | { status: 'fail'; reason: string }
  | { status: 'unknown' };

/** Why a submission is refused before any job starts (the Etherscan API's `result`, status "0"). */
export class SubmissionRefused extends Error {}

type Row = Record<string, unknown>;

/** What verification asks solc for; nothing else (no AST: its JSON export can take minutes). */
const OUTPUTS = [
  'abi',
  'evm.bytecode.object',
  'evm.deployedBytecode.object',
  'evm.deployedBytecode.immutableReferences',
];
/** Verification jobs are kept this long for checkverifystatus. */
const JOB_RETENTION = '7 days';
/** A job still pending after this long was abandoned (its instance stopped while it ran). */
const STALE_PENDING = '10 minutes';
/**
 * How long a submission waits for its verification before answering its guid (docs/api.md,
 * "Etherscan-compatible API"): `forge verify-contract --watch` checks the status at once, then
 * only every 15 s, so a verification that has ended by then saves its user those 15 s.
 */
export const SUBMIT_ANSWER_WAIT_MS = 10_000;

/** One line of a compiler message, bounded. */
const firstLine = (text: string) => (text.split('\n')[0] ?? '').slice(0, 300);

interface SolcOutput {
  errors?: Array<{ severity?: string; formattedMessage?: string; message?: string }>;
  contracts?: Record<
    string,
    Record<
      string,
      {
        abi?: unknown[];
        evm?: {
          bytecode?: { object?: string };
          deployedBytecode?: { object?: string; immutableReferences?: ImmutableReferences };
        };
      }
    >
  >;
}

interface PreparedInput {
  standardJson: string;
  sources: Record<string, string>;
  file: string;
  name: string;
  evmVersion: string;
  optimizer: { enabled: boolean; runs: number };
}

/**
 * Verification by recompiling (docs/api.md, "Verification"): a request becomes a job (a guid),
 * which compiles the sources in the compile workers' public lane, compares the result with the
 * code at the address and its creation transaction, and stores the verified contract.
 */
export class VerificationService {
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly ds: DataSource,
    private readonly reader: ChainReader,
    private readonly compiler: SolidityCompiler,
    private readonly logger: Logger,
  ) {}

  /** The compilers and EVM versions verification accepts. */
  config(): { compilerVersions: string[]; evmVersions: string[] } {
    return { compilerVersions: compilerVersions(), evmVersions: evmVersions() };
  }

  /**
   * The verified contract at `address`, or null. A contract deployed through the portal is verified
   * from its own record (sources, settings, ABI) the first time it is asked for, when its code on
   * chain is the code the portal compiled.
   */
  async contractAt(network: Network, address: string): Promise<VerifiedContract | null> {
    const rows: Row[] = await this.ds.query(`SELECT * FROM verified_contracts WHERE network = $1 AND address = $2`, [
      network,
      checksum(address),
    ]);
    if (rows[0]) return toVerified(rows[0]);
    return this.fromPortalRecord(network, checksum(address));
  }

  /** Verifies a portal contract from its record (the contracts domain's table), or null when none matches. */
  private async fromPortalRecord(network: Network, address: string): Promise<VerifiedContract | null> {
    const record = await portalRecordAt(this.ds, network, address);
    if (!record) return null;
    const code = await this.reader.call<string>(network, 'eth_getCode', [address, 'latest']);
    const runtime = compareRuntime(
      code,
      record.deployed_bytecode as string,
      (record.immutable_references as ImmutableReferences | null) ?? {},
    );
    if (runtime.match === null) return null;
    const compiler = record.compiler as {
      version: string;
      evmVersion: string;
      optimizer: { enabled: boolean; runs: number };
    };
    const creation = await this.creationOf(network, address).catch(() => null);
    await this.ds.query(
      `INSERT INTO verified_contracts (network, address, name, source_file, match, compiler_version, evm_version,
         optimizer, runs, code_format, sources, standard_json, abi, constructor_args, license_type,
         creation_tx_hash, creator)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'portal', $10, NULL, $11, $12, NULL, $13, $14)
       ON CONFLICT (network, address) DO NOTHING`,
      [
        network,
        address,
        record.contract_name,
        record.source_file,
        runtime.match,
        `v${compiler.version.replace(/^v/, '')}`,
        compiler.evmVersion,
        compiler.optimizer.enabled,
        compiler.optimizer.runs,
        JSON.stringify(record.sources),
        JSON.stringify(record.abi),
        bareHex((record.constructor_args as string | null) ?? ''),
        creation?.txHash ?? (record.deploy_tx_hash as string | null),
        creation?.creator ?? null,
      ],
    );
    const rows: Row[] = await this.ds.query(`SELECT * FROM verified_contracts WHERE network = $1 AND address = $2`, [
      network,
      address,
    ]);
    return rows[0] ? toVerified(rows[0]) : null;
  }

  /**
   * Accepts a request: refuses at once an address already verified (a `partial` match may still be
   * replaced by a `full` one) or without code, else records a pending job, starts it and returns
   * its guid.
   */
  async submit(network: Network, request: VerificationRequest): Promise<string> {
    const address = checksum(request.address);
    if ((await this.contractAt(network, address))?.match === 'full') {
      throw new SubmissionRefused('Contract source code already verified');
    }
    const code = await this.reader.call<string>(network, 'eth_getCode', [address, 'latest']);
    if (bareHex(code) === '') throw new SubmissionRefused(`Unable to locate ContractCode at ${address}`);
    // Etherscan's guids are 50 characters of [a-z0-9]; forge and hardhat-verify pass them back as given.
    const guid = randomBytes(25).toString('hex');
    await this.ds.query(`DELETE FROM verification_jobs WHERE created_at < now() - $1::interval`, [JOB_RETENTION]);
    await this.ds.query(
      `INSERT INTO verification_jobs (guid, network, address, status) VALUES ($1, $2, $3, 'pending')`,
      [guid, network, address],
    );
    const job = this.run(guid, network, { ...request, address }, code)
      .catch((err: unknown) => {
        this.logger.warn({ guid, err: String(err) }, 'Verification job failed unexpectedly');
        return this.finish(guid, 'fail', 'the verification could not be completed; try again');
      })
      .catch(() => undefined)
      .finally(() => this.running.delete(job));
    this.running.add(job);
    // The guid once the job has ended, or after SUBMIT_ANSWER_WAIT_MS: whichever comes first.
    const waited = new AbortController();
    await Promise.race([
      job,
      delay(SUBMIT_ANSWER_WAIT_MS, undefined, { signal: waited.signal }).catch(() => undefined),
    ]);
    waited.abort();
    return guid;
  }

  /** Where a job stands. */
  async status(guid: string): Promise<JobStatus> {
    const rows: Row[] = await this.ds.query(
      `SELECT status, reason, created_at < now() - $2::interval AS stale FROM verification_jobs WHERE guid = $1`,
      [guid, STALE_PENDING],
    );
    const row = rows[0];
    if (!row) return { status: 'unknown' };
    // A job its instance never finished (it stopped meanwhile): clients would poll it forever.
    if (row.status === 'pending' && row.stale === true) {
      return { status: 'fail', reason: 'the verification was interrupted; submit it again' };
    }
    if (row.status === 'fail') return { status: 'fail', reason: (row.reason as string | null) ?? 'unknown reason' };
    return { status: row.status as 'pending' | 'pass' | 'already' };
  }

  /** Waits for the jobs running now (tests and shutdown). */
  async drain(): Promise<void> {
    await Promise.all([...this.running]);
  }

  /** The creation transaction of `address` and its sender: from the explorer's index, else the node. */
  async creationOf(
    network: Network,
    address: string,
  ): Promise<{ txHash: string; creator: string; input: string | null } | null> {
    const r = await indexedCreationOf(this.ds, network, address);
    if (r) {
      return {
        txHash: r.hash as string,
        creator: checksum(r.from_address as string),
        input: r.to_address === null ? (r.input as string) : null,
      };
    }
    // Otterscan's method (anvil, Erigon, Reth); Besu lacks it and the index then is the only source.
    let found: { hash?: string; creator?: string } | null = null;
    try {
      found = await this.reader.call<{ hash?: string; creator?: string } | null>(
        network,
        'ots_getContractCreator',
        [address],
        { attempts: 1 },
      );
    } catch {
      return null;
    }
    // The node's answer is checked before use: chain data is hostile input.
    if (typeof found?.hash !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(found.hash)) return null;
    if (typeof found.creator !== 'string' || !isAddressLike(found.creator)) return null;
    const tx = await this.reader
      .call<{ to?: unknown; input?: unknown } | null>(network, 'eth_getTransactionByHash', [found.hash])
      .catch(() => null);
    const created = tx !== null && (tx.to === null || tx.to === undefined) && typeof tx.input === 'string';
    return {
      txHash: found.hash.toLowerCase(),
      creator: checksum(found.creator),
      input: created && /^0x[0-9a-fA-F]*$/.test(tx.input as string) ? (tx.input as string) : null,
    };
  }

  private async finish(guid: string, status: 'pass' | 'fail' | 'already', reason?: string): Promise<void> {
    await this.ds.query(`UPDATE verification_jobs SET status = $2, reason = $3 WHERE guid = $1`, [
      guid,
      status,
      reason ?? null,
    ]);
  }

  private async run(guid: string, network: Network, request: VerificationRequest, code: string): Promise<void> {
    const outcome = await this.verify(network, request, code);
    if ('reason' in outcome) return this.finish(guid, 'fail', outcome.reason);
    const inserted: Row[] = await this.ds.query(
      `INSERT INTO verified_contracts (network, address, name, source_file, match, compiler_version, evm_version,
         optimizer, runs, code_format, sources, standard_json, abi, constructor_args, license_type,
         creation_tx_hash, creator)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)
       ON CONFLICT (network, address) DO UPDATE SET
         name = EXCLUDED.name, source_file = EXCLUDED.source_file, match = EXCLUDED.match,
         compiler_version = EXCLUDED.compiler_version, evm_version = EXCLUDED.evm_version,
         optimizer = EXCLUDED.optimizer, runs = EXCLUDED.runs, code_format = EXCLUDED.code_format,
         sources = EXCLUDED.sources, standard_json = EXCLUDED.standard_json, abi = EXCLUDED.abi,
         constructor_args = EXCLUDED.constructor_args, license_type = EXCLUDED.license_type,
         creation_tx_hash = EXCLUDED.creation_tx_hash, creator = EXCLUDED.creator, verified_at = now()
       WHERE verified_contracts.match = 'partial' AND EXCLUDED.match = 'full'
       RETURNING address`,
      [
        network,
        request.address,
        outcome.name,
        outcome.sourceFile,
        outcome.match,
        outcome.compilerVersion,
        outcome.evmVersion,
        outcome.optimizer.enabled,
        outcome.optimizer.runs,
        outcome.codeFormat,
        JSON.stringify(outcome.sources),
        outcome.standardJson,
        JSON.stringify(outcome.abi),
        outcome.constructorArgs,
        outcome.licenseType,
        outcome.creationTxHash,
        outcome.creator,
      ],
    );
    await this.finish(guid, inserted.length > 0 ? 'pass' : 'already');
  }

  /** Compiles and compares; the verified contract, or the first reason it is not. */
  async verify(
    network: Network,
    request: VerificationRequest,
    code: string,
  ): Promise<Omit<VerifiedContract, 'verifiedAt'> | { reason: string }> {
    const compiler = installedCompiler(request.compilerVersion);
    if (!compiler) {
      return {
        reason: `compiler version ${request.compilerVersion.slice(0, 80)} is not available (available: ${compilerVersions().join(', ')})`,
      };
    }
    const prepared = prepareInput(request, compiler);
    if ('reason' in prepared) return prepared;
    const compiled = await this.compile(prepared, compiler.release, request.client);
    if ('reason' in compiled) return compiled;

    const runtime = compareRuntime(code, compiled.deployedBytecode, compiled.immutableReferences);
    if (runtime.match === null) return { reason: runtime.reason };
    let match: MatchKind = runtime.match;
    const creation = await this.creationOf(network, request.address);
    const submittedArgs = bareHex(request.constructorArguments ?? '');
    let constructorArgs = submittedArgs;
    if (creation?.input) {
      const compared = compareCreation(creation.input, compiled.bytecode);
      if (compared.match === null) return { reason: compared.reason };
      if (compared.match === 'partial') match = 'partial';
      if (submittedArgs !== '' && submittedArgs !== compared.constructorArgs) {
        return { reason: 'the constructor arguments differ from those of the creation transaction' };
      }
      constructorArgs = compared.constructorArgs;
    }
    return {
      network,
      address: request.address,
      name: prepared.name,
      sourceFile: prepared.file,
      match,
      compilerVersion: compiler.version,
      evmVersion: prepared.evmVersion,
      optimizer: prepared.optimizer,
      codeFormat: request.codeFormat,
      sources: prepared.sources,
      standardJson: request.codeFormat === 'solidity-standard-json-input' ? prepared.standardJson : null,
      abi: compiled.abi,
      constructorArgs,
      licenseType: request.licenseType ?? null,
      creationTxHash: creation?.txHash ?? null,
      creator: creation?.creator ?? null,
    };
  }

  private async compile(
    prepared: PreparedInput,
    release: string,
    client: string | undefined,
  ): Promise<
    | {
        abi: unknown[];
        bytecode: string;
        deployedBytecode: string;
        immutableReferences: ImmutableReferences;
      }
    | { reason: string }
  > {
    let outcome: PoolOutcome;
    try {
      ({ outcome } = await this.compiler.compileStandardJson(prepared.standardJson, 'anonymous', client, release));
    } catch (e) {
      if (e instanceof AppError && e.code === 'RATE_LIMITED') {
        return { reason: 'a compile or verification of yours is already running; submit again once it ends' };
      }
      return { reason: 'the compilers are busy; try again later' };
    }
    if (outcome.kind === 'timed-out') return { reason: 'compilation timed out' };
    if (outcome.kind === 'crashed') return { reason: 'the compiler crashed on this input' };
    if (outcome.kind === 'preempted') {
      return { reason: 'the compile was stopped so that other clients could compile; submit it again' };
    }
    let output: SolcOutput;
    try {
      output = JSON.parse(outcome.output) as SolcOutput;
    } catch {
      return { reason: 'the compiler gave no readable output' };
    }
    const error = (output.errors ?? []).find((e) => e.severity === 'error');
    if (error) {
      return { reason: `compilation failed: ${firstLine(error.formattedMessage ?? error.message ?? 'unknown error')}` };
    }
    const contract = output.contracts?.[prepared.file]?.[prepared.name];
    const bytecode = contract?.evm?.bytecode?.object;
    const deployedBytecode = contract?.evm?.deployedBytecode?.object;
    if (!contract || bytecode === undefined || deployedBytecode === undefined) {
      return { reason: `contract ${prepared.file}:${prepared.name} is not in the compiled sources` };
    }
    return {
      abi: contract.abi ?? [],
      bytecode,
      deployedBytecode,
      immutableReferences: contract.evm?.deployedBytecode?.immutableReferences ?? {},
    };
  }
}

/** The standard JSON to compile with `compiler`, the sources to keep and the contract wanted; or why not. */
export function prepareInput(
  request: VerificationRequest,
  compiler: InstalledCompiler,
): PreparedInput | { reason: string } {
  const colon = request.contractName.lastIndexOf(':');
  const name = colon >= 0 ? request.contractName.slice(colon + 1) : request.contractName;
  if (!/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name)) return { reason: 'contractname must be path:Name or Name' };
  let input: { language?: unknown; sources?: unknown; settings?: Record<string, unknown> };
  if (request.codeFormat === 'solidity-standard-json-input') {
    try {
      input = JSON.parse(request.sourceCode) as typeof input;
    } catch {
      return { reason: 'sourceCode is not a standard-JSON input' };
    }
    if (typeof input !== 'object' || input === null || typeof input.sources !== 'object' || input.sources === null) {
      return { reason: 'sourceCode is not a standard-JSON input' };
    }
  } else {
    const file = colon >= 0 ? request.contractName.slice(0, colon) : `${name}.sol`;
    input = {
      language: 'Solidity',
      sources: { [file]: { content: request.sourceCode } },
      settings: {
        optimizer: { enabled: request.optimizationUsed ?? false, runs: request.runs ?? 200 },
        ...(request.evmVersion && request.evmVersion !== 'default' ? { evmVersion: request.evmVersion } : {}),
      },
    };
  }
  if (input.language !== undefined && input.language !== 'Solidity') return { reason: 'only Solidity is supported' };
  const sources: Record<string, string> = {};
  for (const [path, entry] of Object.entries(input.sources as Record<string, unknown>)) {
    const content = (entry as { content?: unknown } | null)?.content;
    if (typeof content !== 'string')
      return { reason: `source ${path.slice(0, 200)} has no content (urls are not fetched)` };
    sources[path] = content;
  }
  const paths = Object.keys(sources);
  let file = colon >= 0 ? request.contractName.slice(0, colon) : undefined;
  if (file === undefined) {
    // `Name` alone: the one file that declares it.
    const declaring = paths.filter((p) =>
      new RegExp(`\\b(contract|library)\\s+${name.replace(/\$/g, '\\$')}(?![A-Za-z0-9_$])`).test(sources[p]!),
    );
    if (declaring.length !== 1) return { reason: 'contractname must be path:Name when the sources have several files' };
    file = declaring[0]!;
  }
  if (!(file in sources)) return { reason: `contractname names ${file.slice(0, 200)}, which is not in the sources` };
  const settings: Record<string, unknown> = { ...(input.settings ?? {}) };
  delete settings.modelChecker;
  settings.outputSelection = { [file]: { [name]: OUTPUTS } };
  const optimizer = (settings.optimizer ?? {}) as { enabled?: unknown; runs?: unknown };
  const evm = typeof settings.evmVersion === 'string' ? settings.evmVersion : 'default';
  if (evm !== 'default' && !compiler.evmVersions.includes(evm)) {
    const known = compiler.evmVersions;
    return {
      reason: `evmVersion ${evm.slice(0, 40)} is not supported by ${compiler.version} (supported: ${known[0]} to ${known[known.length - 1]})`,
    };
  }
  return {
    standardJson: JSON.stringify({
      language: 'Solidity',
      sources: Object.fromEntries(paths.map((p) => [p, { content: sources[p] }])),
      settings,
    }),
    sources,
    file,
    name,
    evmVersion: evm,
    optimizer: {
      enabled: optimizer.enabled === true,
      runs: typeof optimizer.runs === 'number' && Number.isSafeInteger(optimizer.runs) ? optimizer.runs : 200,
    },
  };
}

function toVerified(r: Row): VerifiedContract {
  return {
    network: r.network as Network,
    address: r.address as string,
    name: r.name as string,
    sourceFile: r.source_file as string,
    match: r.match as MatchKind,
    compilerVersion: r.compiler_version as string,
    evmVersion: r.evm_version as string,
    optimizer: { enabled: r.optimizer as boolean, runs: r.runs as number },
    codeFormat: r.code_format as string,
    sources: r.sources as Record<string, string>,
    standardJson: (r.standard_json as string | null) ?? null,
    abi: r.abi as unknown[],
    constructorArgs: r.constructor_args as string,
    licenseType: (r.license_type as string | null) ?? null,
    creationTxHash: (r.creation_tx_hash as string | null) ?? null,
    creator: (r.creator as string | null) ?? null,
    verifiedAt: r.verified_at as Date,
  };
}
