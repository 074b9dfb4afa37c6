/** What the keys module offers the other modules (the only file they may import from it). */
export { ApiKeyService } from './keys.service';
