/** What the analytics module offers the other modules (the only file they may import from it). */
export { UsageRecorder, type UsageKind } from './usage-recorder';
