export { findMethod, listMethods, methodKey, type AbiMethod } from './abi-method';
export { encodeArgs } from './abi-args';
export { CallCodec } from './call-codec';
export { elementaryTypeNamed, type ElementaryType } from './elementary-type';
export {
  decodeEvent,
  decodeEventAsync,
  decodeLogWith,
  decodeLogWithAsync,
  findEvent,
  listEvents,
  type AbiEvent,
  type DecodedEvent,
} from './abi-event';
export {
  AbiDataError,
  checkDataSize,
  dataBytes,
  DecodeBudget,
  decodeFunctionOutput,
  decodeParams,
  decodeParamsAsync,
  elementsOf,
  isTooLarge,
  MAX_DECODED_BYTES,
  MAX_DECODED_ELEMENTS,
  MAX_QUOTED_BYTES,
  paramTypes,
  quoted,
  tooLarge,
} from './bounded-decoder';
