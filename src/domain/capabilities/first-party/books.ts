// The books capabilities the marketplace serves itself (see types.ts).
import type { FirstPartyCapability } from './types';

export const BOOKS_CAPABILITIES: FirstPartyCapability[] = [];
