/** What the accounts module offers the other modules (the only file they may import from it). */
export { DeveloperEntity } from './developer.entity';
