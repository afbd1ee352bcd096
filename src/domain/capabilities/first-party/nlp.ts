// The nlp capabilities the marketplace serves itself (see types.ts).
import type { FirstPartyCapability } from './types';

export const NLP_CAPABILITIES: FirstPartyCapability[] = [];
