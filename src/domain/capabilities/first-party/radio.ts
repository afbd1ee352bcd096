// The radio capabilities the marketplace serves itself (see types.ts).
import type { FirstPartyCapability } from './types';

export const RADIO_CAPABILITIES: FirstPartyCapability[] = [];
