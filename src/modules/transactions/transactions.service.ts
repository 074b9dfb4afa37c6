import type { Session } from '../../auth/session';
import { AppError } from '../../errors/app-error';
import { isUuid } from '../../kernel/pagination';
import type { TransactionRecords } from './transaction-records';
import type { GatewayTransaction } from './transactions.types';

/** Reads transaction records for their developer or the API key that sent them. */
export class TransactionService {
  constructor(private readonly records: TransactionRecords) {}

  async get(session: Session, id: string): Promise<GatewayTransaction> {
    // Credentials first: without them nothing, not even whether the id is well formed, is answered.
    await session.developerOrKey();
    if (!isUuid(id)) throw new AppError('VALIDATION_FAILED', 'id must be a UUID', { field: 'id' });
    const record = await this.records.find(id);
    if (!record) throw new AppError('NOT_FOUND', 'No such transaction');
    await session.transactionReader(record);
    return {
      id: record.id,
      kind: record.kind,
      network: record.network,
      contractId: record.contractId,
      method: record.method,
      status: record.status,
      txHash: record.txHash,
      nonce: record.nonce,
      blockNumber: record.blockNumber,
      gasUsed: record.gasUsed,
      revertReason: record.revertReason,
      error: record.error,
      createdAt: record.createdAt,
      updatedAt: record.updatedAt,
    };
  }
}
