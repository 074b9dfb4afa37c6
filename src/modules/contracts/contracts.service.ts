import { Interface, concat, getAddress, keccak256 } from 'ethers';
import type { DataSource } from 'typeorm';
import { CHAIN_IDS, type Network } from '../../kernel/network';
import { checksum } from '../../kernel/address';
import { AppError } from '../../kernel/errors/app-error';
import type { Logger } from '../../kernel/logger';
import { decodeCursor, encodeCursor, isUuid, pageLimit } from '../../kernel/pagination';
import { clientLimitKey } from '../../kernel/client-address';
import type { Session } from '../../auth/session';
import { encodeArgs } from '../../chain/abi';
import type { ProjectService } from '../projects';
import type { PreparedTransaction, SendRequest, TransactionSender } from '../wallets';
import type { WalletService } from '../wallets';
import type { CompileLane, SolidityCompiler, CompileResult } from './compiler/compiler';
import { ContractEntity, type ContractStatus } from './contract.entity';
import type {
  CompileContractInput,
  CompileOutput,
  Contract,
  ContractPage,
  DeployContractInput,
  MiddlewareRegistration,
} from './contracts.types';
import { assertAbiWithinLimits } from './abi-limits';
import { ContractDocuments, type ContractDocument, type DocumentKind } from './spec/contract-documents';

/** A deployment whose receipt takes longer is answered as `deploying`, and settled later. */
const RECEIPT_TIMEOUT_MS = 60_000;
const STATUSES: readonly ContractStatus[] = ['compiled', 'deploying', 'deployed', 'failed', 'rejected'];

export interface ContractServiceOptions {
  /** Base URLs published in contract specifications: production first, then the developer host. */
  servers: string[];
  /** The documents' cache and worker (default: one of its own). */
  documents?: ContractDocuments;
}

export interface DeployOptions {
  /** Prefer: respond-async: answer once accepted (compiled, checks passed, record queued), send afterwards. */
  respondAsync?: boolean;
}

/** A deployment's answer: the contract, and the transaction record to follow when accepted for later. */
export interface DeployOutcome {
  contract: Contract;
  /** Set when accepted for later (REST answers it 202 instead of the contract). */
  accepted?: { transactionId: string; status: 'queued' };
}

export const toContract = (c: ContractEntity): Contract => ({
  id: c.id,
  name: c.name,
  network: c.network,
  chainId: c.chainId,
  status: c.status,
  statusReason: c.statusReason,
  address: c.address,
  deployTxHash: c.deployTxHash,
  blockNumber: c.blockNumber === null ? null : Number(c.blockNumber),
  ownerId: c.ownerId,
  projectId: c.projectId,
  abi: c.abi,
  bytecodeHash: c.bytecodeHash,
  sourceHash: c.sourceHash,
  compiler: c.compiler,
  middleware: { registered: c.middlewareRegistered, registeredAt: c.registeredAt },
  createdAt: c.createdAt,
  deployedAt: c.deployedAt,
  approvedAt: c.approvedAt,
});

/** `{source}` or `{sources}` → file map; exactly one of them. */
function sourcesOf(input: CompileContractInput): Record<string, string> {
  const hasSource = input.source !== undefined && input.source !== null;
  const hasSources = input.sources !== undefined && input.sources !== null;
  if (hasSource === hasSources) {
    throw new AppError('VALIDATION_FAILED', 'Send either `source` (one file) or `sources` (files by name)');
  }
  if (hasSource) return { 'Contract.sol': input.source! };
  const sources = input.sources!;
  if (typeof sources !== 'object' || Array.isArray(sources) || Object.keys(sources).length === 0) {
    throw new AppError('VALIDATION_FAILED', '`sources` must be an object of file name to Solidity source');
  }
  for (const [file, text] of Object.entries(sources)) {
    if (typeof text !== 'string') {
      throw new AppError('VALIDATION_FAILED', `sources["${file}"] must be a string`, { field: `sources.${file}` });
    }
  }
  return sources as Record<string, string>;
}

/** Why a deployment failed, for its record: the error's own words when it is ours. */
const failureReason = (e: unknown): string =>
  e instanceof AppError ? e.message : 'the deployment transaction could not be sent';

/** Contracts: compile, deploy (testnet at once, mainnet after approval), records, gateway registration, specs. */
export class ContractService {
  /** Deployments accepted for later still signing or broadcasting (a clean stop waits for them). */
  private readonly sending = new Set<Promise<void>>();
  /** The per-contract API documents, built once per contract version off the event loop. */
  readonly documents: ContractDocuments;

  constructor(
    private readonly ds: DataSource,
    private readonly projects: ProjectService,
    private readonly wallets: WalletService,
    private readonly sender: TransactionSender,
    private readonly compiler: SolidityCompiler,
    private readonly opts: ContractServiceOptions,
    private readonly logger: Logger,
  ) {
    this.documents = opts.documents ?? new ContractDocuments({ logger });
  }

  /** Ends the documents' worker. */
  close(): Promise<void> {
    return this.documents.close();
  }

  private get repo() {
    return this.ds.getRepository(ContractEntity);
  }

  /**
   * Compiles for anyone; a caller with a valid developer token compiles in the developers' lane as
   * that developer, anyone else in the anonymous lane as their address (IPv6 by /64): one compile
   * queued or running per client (docs/api.md, "Compile").
   */
  async compile(input: CompileContractInput, session?: Session): Promise<CompileOutput> {
    let lane: CompileLane = 'anonymous';
    let caller: string | undefined = session && clientLimitKey(session.clientIp);
    if (session?.credentials.bearer) {
      try {
        caller = (await session.developer()).id;
        lane = 'developer';
      } catch (e) {
        if (!(e instanceof AppError) || e.code !== 'UNAUTHENTICATED') throw e;
      }
    }
    const result = await this.compiler.compile(
      { sources: sourcesOf(input), contractName: input.contractName },
      lane,
      caller,
    );
    return {
      compiler: result.compiler,
      warnings: result.warnings,
      contracts: result.contracts.map((c) => ({
        name: c.name,
        sourceFile: c.sourceFile,
        abi: c.abi,
        bytecode: c.bytecode,
        deployedBytecode: c.deployedBytecode,
      })),
    };
  }

  /** A contract by id (public; no secrets in it); 404 for unknown or malformed ids. */
  async require(id: string): Promise<ContractEntity> {
    const found = isUuid(id) ? await this.repo.findOneBy({ id }) : null;
    if (!found) throw new AppError('NOT_FOUND', 'No such contract');
    return found;
  }

  /** The portal contract deployed at `address` on `network`, if any (the address in any case). */
  async deployedAt(network: Network, address: string): Promise<ContractEntity | null> {
    return this.repo.findOneBy({ network, address: checksum(address), status: 'deployed' });
  }

  async get(id: string): Promise<Contract> {
    return toContract(await this.require(id));
  }

  async deploy(session: Session, input: DeployContractInput, opts: DeployOptions = {}): Promise<DeployOutcome> {
    const owner = await session.developer();
    const network: Network = input.network ?? 'testnet';
    if (input.projectId) await this.projects.requireOwned(owner, input.projectId);
    const compiled = await this.compiler.compile(
      { sources: sourcesOf(input), contractName: input.contractName },
      'developer',
      owner.id,
    );
    const chosen = this.chooseContract(compiled, input.contractName);
    const iface = new Interface(chosen.abi as never[]);
    const args = encodeArgs(iface.deploy, input.constructorArgs ?? []);
    const constructorArgs = iface.encodeDeploy(args);
    const record = this.repo.create({
      name: input.name?.trim() || chosen.name,
      network,
      chainId: CHAIN_IDS[network],
      status: 'compiled',
      ownerId: owner.id,
      projectId: input.projectId ?? null,
      contractName: chosen.name,
      sourceFile: chosen.sourceFile,
      abi: chosen.abi,
      bytecode: chosen.bytecode,
      deployedBytecode: chosen.deployedBytecode,
      immutableReferences: chosen.immutableReferences,
      bytecodeHash: keccak256(chosen.bytecode),
      sourceHash: compiled.sourceHash,
      sources: sourcesOf(input),
      constructorArgs,
      compiler: compiled.compiler,
    });
    if (network === 'mainnet') {
      // Mainnet waits for a manual approval; nothing is sent, so there is nothing to accept for later.
      return { contract: toContract(await this.repo.save(record)) };
    }
    if (opts.respondAsync) return this.acceptDeployment(record, owner.id);
    return { contract: toContract(await this.deployRecord(record, owner.id, false)) };
  }

  /**
   * Prefer: respond-async (docs/api.md, Contracts): every check that can refuse the deployment
   * (compile, constructor arguments, funds) has passed; the contract (deploying) and its queued
   * record are stored together, the answer goes out, and the deployment is sent and followed in
   * the background as a synchronous one is.
   */
  private async acceptDeployment(record: ContractEntity, ownerId: string): Promise<DeployOutcome> {
    const { request, prepared } = await this.prepareDeployment(record, ownerId, false);
    record.status = 'deploying';
    record.statusReason = null;
    let saved: ContractEntity | undefined;
    const queued = await this.sender.sendRecorded({
      // The contract is stored in the database transaction that queues its record.
      record: async (m) => {
        saved = await m.getRepository(ContractEntity).save(record);
        return { kind: 'deploy', network: record.network, developerId: ownerId, contractId: saved.id };
      },
      // The signed transaction names the contract its record names.
      request,
      prepared,
      respondAsync: true,
    });
    const contractId = saved!.id;
    // A clean stop waits for the send (signing, broadcast), not for the receipt: the tracker follows that.
    const sent = this.deploymentSent(
      contractId,
      queued.sending.then(({ txHash }) => txHash),
    );
    const sending = sent.then(
      () => undefined,
      () => undefined,
    );
    this.sending.add(sending);
    void sending.finally(() => this.sending.delete(sending));
    void sent
      .then((txHash) => this.followDeployment(contractId, request, txHash))
      .catch((err: unknown) => {
        this.logger.warn(
          { err, contractId, recordId: queued.recordId },
          'an accepted deployment was not sent or not followed',
        );
      });
    return { contract: toContract(saved!), accepted: { transactionId: queued.recordId, status: 'queued' } };
  }

  /** Lets accepted deployments finish signing and broadcasting (at shutdown, after the HTTP server). */
  async drain(): Promise<void> {
    await Promise.all([...this.sending]);
  }

  private chooseContract(compiled: CompileResult, contractName?: string) {
    if (compiled.contracts.length === 0) {
      throw new AppError('COMPILATION_FAILED', 'The sources contain no deployable contract', { errors: [] });
    }
    if (compiled.contracts.length > 1 && !contractName) {
      const names = compiled.contracts.map((c) => c.name);
      throw new AppError(
        'VALIDATION_FAILED',
        `The sources define several contracts; choose one with contractName (${names.join(', ')})`,
        { field: 'contractName', contracts: names },
      );
    }
    return compiled.contracts[0]!;
  }

  /**
   * Sends a record's deployment from the owner's custodial wallet and waits for it. Checks that
   * can refuse it (revert, funds) run before the record is touched; once sent, the record's status
   * always tells the truth: deploying, then deployed or failed.
   */
  private async deployRecord(record: ContractEntity, ownerId: string, approved: boolean): Promise<ContractEntity> {
    const { request, prepared } = await this.prepareDeployment(record, ownerId, approved);
    record.status = 'deploying';
    record.statusReason = null;
    const saved = await this.repo.save(record);
    const sent = this.sender
      .sendRecorded({
        record: { kind: 'deploy', network: record.network, developerId: ownerId, contractId: saved.id },
        request: { ...request, contractId: saved.id },
        prepared,
      })
      .then(({ sent: { txHash } }) => txHash);
    const txHash = await this.deploymentSent(saved.id, sent);
    await this.followDeployment(saved.id, request, txHash);
    return this.require(saved.id);
  }

  /** The deployment transaction, prepared (nonce, fees, funds): a refusal here leaves the record as it was. */
  private async prepareDeployment(
    record: ContractEntity,
    ownerId: string,
    approved: boolean,
  ): Promise<{ request: SendRequest; prepared: PreparedTransaction }> {
    const signer = await this.wallets.custodialSigner(ownerId);
    const request: SendRequest = {
      network: record.network,
      signer,
      to: null,
      data: concat([record.bytecode, record.constructorArgs ?? '0x']),
      kind: 'deploy',
      developerId: ownerId,
      iface: new Interface(record.abi as never[]),
    };
    try {
      return { request, prepared: await this.sender.prepare(request) };
    } catch (e) {
      if (approved) await this.repo.update({ id: record.id }, { status: 'compiled', approvedAt: null });
      throw e;
    }
  }

  /** The deployment's send settles the contract: its transaction hash, or failed with the reason. */
  private async deploymentSent(contractId: string, sending: Promise<string>): Promise<string> {
    let txHash: string;
    try {
      txHash = await sending;
    } catch (e) {
      await this.repo.update({ id: contractId }, { status: 'failed', statusReason: failureReason(e) });
      throw e;
    }
    await this.repo.update({ id: contractId }, { deployTxHash: txHash });
    return txHash;
  }

  /** Waits up to 60 s for the deployment's receipt and settles the contract by it. */
  private async followDeployment(contractId: string, request: SendRequest, txHash: string): Promise<void> {
    const mined = await this.sender.waitForReceipt(request.network, txHash, RECEIPT_TIMEOUT_MS, request.iface);
    if (mined) await this.settleDeployment(contractId, mined);
    else this.logger.warn({ contractId, txHash }, 'deployment not mined within 60 s; left deploying');
  }

  /** Records the outcome of a mined deployment transaction. */
  async settleDeployment(
    contractId: string,
    mined: { status: 'success' | 'reverted'; blockNumber: number; contractAddress: string | null },
  ): Promise<void> {
    if (mined.status === 'success' && mined.contractAddress) {
      await this.repo.update(
        { id: contractId, status: 'deploying' },
        {
          status: 'deployed',
          address: getAddress(mined.contractAddress),
          blockNumber: String(mined.blockNumber),
          deployedAt: new Date(),
        },
      );
    } else {
      await this.repo.update(
        { id: contractId, status: 'deploying' },
        {
          status: 'failed',
          statusReason: 'the deployment transaction reverted',
          blockNumber: String(mined.blockNumber),
        },
      );
    }
  }

  /** Marks a deployment whose transaction can never be mined as failed. */
  async failDeployment(contractId: string, reason: string): Promise<void> {
    await this.repo.update({ id: contractId, status: 'deploying' }, { status: 'failed', statusReason: reason });
  }

  async listForDeveloper(
    session: Session,
    developerId: string,
    filter: {
      network?: Network | null;
      status?: string | null;
      projectId?: string | null;
      limit?: number | null;
      cursor?: string | null;
    },
  ): Promise<ContractPage> {
    const caller = await session.self(developerId);
    return this.page({ ...filter, ownerId: caller.id });
  }

  private async page(filter: {
    ownerId?: string;
    network?: Network | null;
    status?: string | null;
    projectId?: string | null;
    limit?: number | null;
    cursor?: string | null;
  }): Promise<ContractPage> {
    if (filter.status && !STATUSES.includes(filter.status as ContractStatus)) {
      throw new AppError('VALIDATION_FAILED', `status must be one of ${STATUSES.join(', ')}`, { field: 'status' });
    }
    if (filter.projectId && !isUuid(filter.projectId)) {
      throw new AppError('VALIDATION_FAILED', 'projectId must be a UUID', { field: 'projectId' });
    }
    const size = pageLimit(filter.limit);
    const after = decodeCursor(filter.cursor);
    // Ordered and paged by the creation time to the millisecond (what the cursor holds: a JS Date),
    // then id: contracts created within one millisecond are neither skipped nor repeated.
    const createdMs = "date_trunc('milliseconds', c.created_at)";
    const q = this.repo
      .createQueryBuilder('c')
      .orderBy(createdMs, 'DESC')
      .addOrderBy('c.id', 'DESC')
      .take(size + 1);
    if (filter.ownerId) q.andWhere('c.owner_id = :ownerId', { ownerId: filter.ownerId });
    if (filter.network) q.andWhere('c.network = :network', { network: filter.network });
    if (filter.status) q.andWhere('c.status = :status', { status: filter.status });
    if (filter.projectId) q.andWhere('c.project_id = :projectId', { projectId: filter.projectId });
    if (after) q.andWhere(`(${createdMs}, c.id) < (:at, :id)`, { at: after.at, id: after.id });
    const rows = await q.getMany();
    const page = rows.slice(0, size);
    const last = page[page.length - 1];
    return {
      items: page.map(toContract),
      nextCursor: rows.length > size && last ? encodeCursor({ at: last.createdAt.toISOString(), id: last.id }) : null,
    };
  }

  async adminList(session: Session, status: string | null, limit: number | null, cursor: string | null) {
    await session.admin('review mainnet deployments');
    return this.page({ status: status ?? 'compiled', limit, cursor });
  }

  /** Moves a compiled contract to `to`, or 409 INVALID_STATE naming its current status. */
  private async transition(
    id: string,
    to: ContractStatus,
    extra: { approvedAt?: Date; statusReason?: string },
  ): Promise<ContractEntity> {
    const current = await this.require(id);
    const result = await this.repo.update({ id, status: 'compiled' }, { status: to, ...extra });
    if (!result.affected) {
      const now = await this.require(id);
      throw new AppError('INVALID_STATE', `The contract is ${now.status}; only a compiled contract can be reviewed`, {
        status: now.status,
      });
    }
    return { ...current, status: to, ...extra } as ContractEntity;
  }

  async approve(session: Session, id: string): Promise<Contract> {
    const admin = await session.admin('review mainnet deployments');
    // A record compiled before the ABI limits is held to them when it comes to deploying.
    const pending = await this.require(id);
    if (pending.status === 'compiled') assertAbiWithinLimits(pending.name, pending.abi);
    const claimed = await this.transition(id, 'deploying', { approvedAt: new Date() });
    this.logger.info({ contractId: id, adminId: admin.id }, 'mainnet deployment approved');
    const record = await this.require(claimed.id);
    return toContract(await this.deployRecord(record, record.ownerId, true));
  }

  async reject(session: Session, id: string, reason: string | null): Promise<Contract> {
    const admin = await session.admin('review mainnet deployments');
    const text = reason?.trim() ? reason.trim().slice(0, 1000) : 'rejected by an administrator';
    await this.transition(id, 'rejected', { statusReason: text });
    this.logger.info({ contractId: id, adminId: admin.id }, 'mainnet deployment rejected');
    return this.get(id);
  }

  private registration(c: ContractEntity): MiddlewareRegistration {
    const base = `${this.opts.servers[0]}/api/devportal/contracts/${c.id}`;
    return {
      contractId: c.id,
      registered: true,
      registeredAt: c.registeredAt!,
      endpoints: { query: `${base}/query/{method}`, invoke: `${base}/invoke/{method}` },
      swaggerUrl: `${base}/swagger`,
      openapiUrl: `${base}/openapi.json`,
    };
  }

  async registerMiddleware(session: Session, id: string): Promise<MiddlewareRegistration> {
    const caller = await session.developer();
    const contract = await this.require(id);
    if (contract.ownerId !== caller.id) {
      throw new AppError('FORBIDDEN', 'Only the owner of the contract may register it');
    }
    if (contract.status !== 'deployed') {
      throw new AppError(
        'CONTRACT_NOT_DEPLOYED',
        `The contract is ${contract.status}; only deployed contracts can be registered`,
        {
          status: contract.status,
        },
      );
    }
    await this.ds.query(
      `UPDATE contracts SET middleware_registered = true, registered_at = coalesce(registered_at, now()) WHERE id = $1`,
      [id],
    );
    return this.registration(await this.require(id));
  }

  /**
   * The `kind` document of contract `id`, from the cache when its version is there: the record is
   * read without its ABI, which is read (as JSON text, parsed in the worker) only to build.
   */
  private async document(kind: DocumentKind, id: string): Promise<ContractDocument> {
    const found = isUuid(id)
      ? await this.repo.findOne({
          where: { id },
          select: { id: true, name: true, network: true, address: true, middlewareRegistered: true },
        })
      : null;
    if (!found) throw new AppError('NOT_FOUND', 'No such contract');
    if (kind === 'swagger' && !found.middlewareRegistered) {
      throw new AppError(
        'CONTRACT_NOT_REGISTERED',
        'The contract is not registered in the gateway (register-middleware)',
      );
    }
    const contract = {
      id: found.id,
      name: found.name,
      network: found.network,
      address: found.address,
      servers: this.opts.servers,
    };
    return this.documents.get(kind, contract, async () => {
      const rows = (await this.ds.query('SELECT abi::text AS abi FROM contracts WHERE id = $1', [id])) as {
        abi: string;
      }[];
      if (!rows[0]) throw new AppError('NOT_FOUND', 'No such contract');
      return rows[0].abi;
    });
  }

  /** Swagger 2.0 document of a registered contract, serialized, with its ETag (REST). */
  swaggerDocument(id: string): Promise<ContractDocument> {
    return this.document('swagger', id);
  }

  /** OpenAPI 3.0.3 document of a contract, serialized, with its ETag (REST). */
  openApiDocument(id: string): Promise<ContractDocument> {
    return this.document('openapi', id);
  }

  async swagger(id: string): Promise<object> {
    return (await this.swaggerDocument(id)).value();
  }

  async openApi(id: string): Promise<object> {
    return (await this.openApiDocument(id)).value();
  }
}
