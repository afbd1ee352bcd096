// The web capabilities the marketplace serves itself (see types.ts).
import type { FirstPartyCapability } from './types';

export const WEB_CAPABILITIES: FirstPartyCapability[] = [];
