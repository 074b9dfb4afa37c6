import { keccak256 } from 'ethers';
import { LRUCache } from 'lru-cache';

/** Inputs up to this size are remembered: function signatures and addresses being checksummed. */
const MAX_CACHED_INPUT = 128;

let installed = false;

/**
 * Makes ethers remember the keccak-256 of short inputs. ethers hashes the same few strings on every
 * gateway call (a function's signature for its selector, each address for its EIP-55 checksum, on
 * the way in and again on the way out) in pure JavaScript; keccak-256 is a pure function, so a
 * remembered digest is the digest. Longer inputs (transactions, code) are hashed as before.
 */
export function installKeccakCache(): void {
  if (installed) return;
  installed = true;
  const compute = keccak256._;
  const cache = new LRUCache<string, Uint8Array>({ max: 20_000 });
  keccak256.register((data: Uint8Array) => {
    if (data.length > MAX_CACHED_INPUT) return compute(data);
    const key = Buffer.from(data.buffer, data.byteOffset, data.length).toString('latin1');
    let digest = cache.get(key);
    if (digest === undefined) {
      digest = compute(data);
      cache.set(key, digest);
    }
    // A copy: callers own the bytes they get back.
    return digest.slice();
  });
}
