import type { JsonRpcPayload } from 'ethers';
import { mayFailOver } from './failover-transport';
import { RpcHttpError } from './rpc-transport';

const read: JsonRpcPayload = { jsonrpc: '2.0', id: 1, method: 'eth_getBalance', params: [] };
const send: JsonRpcPayload = { jsonrpc: '2.0', id: 1, method: 'eth_sendRawTransaction', params: ['0x00'] };
const socket = (code: string) => Object.assign(new Error(code), { code });

describe('mayFailOver', () => {
  it('moves a read to the next node after any failure to answer', () => {
    for (const err of [socket('ECONNREFUSED'), socket('ECONNRESET'), socket('UND_ERR_HEADERS_TIMEOUT')]) {
      expect(mayFailOver(err, read)).toBe(true);
    }
    expect(mayFailOver(new RpcHttpError('bad response', 503), read)).toBe(true);
    expect(mayFailOver(new RpcHttpError('bad response', 429), read)).toBe(true);
    expect(mayFailOver(new RpcHttpError('bad response', 401), read)).toBe(false);
  });

  it('moves a transaction only when it surely did not reach the node (never after a reset or a timeout)', () => {
    expect(mayFailOver(socket('ECONNREFUSED'), send)).toBe(true);
    expect(mayFailOver(socket('UND_ERR_CONNECT_TIMEOUT'), send)).toBe(true);
    expect(mayFailOver(new RpcHttpError('bad response', 503), send)).toBe(true);
    expect(mayFailOver(socket('ECONNRESET'), send)).toBe(false);
    expect(mayFailOver(socket('UND_ERR_HEADERS_TIMEOUT'), send)).toBe(false);
    expect(mayFailOver(new RpcHttpError('bad response', 500), send)).toBe(false);
  });
});
