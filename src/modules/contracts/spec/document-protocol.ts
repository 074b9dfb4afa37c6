import type { Network } from '../../../kernel/network';
import type { AbiExcess } from '../abi-limits';

/** Which document of a contract. */
export type DocumentKind = 'openapi' | 'swagger';

/** What a document is built from, less the ABI (sent as the database's JSON text, parsed in the worker). */
export interface DocumentContract {
  id: string;
  name: string;
  network: Network;
  address: string | null;
  servers: string[];
}

/** The service's thread → the document worker. */
export interface DocumentJob {
  id: number;
  kind: DocumentKind;
  contract: DocumentContract;
  abiJson: string;
}

/** The document worker → the service's thread: the serialized document, or why there is none. */
export type DocumentOutcome =
  | { id: number; ok: true; body: Uint8Array; etag: string }
  | { id: number; ok: false; excess: AbiExcess }
  | { id: number; ok: false; error: string; excess?: undefined };
