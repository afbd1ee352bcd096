// Builds the schema from every area's type file. Import order does not matter; each file registers itself.
import { builder } from './builder';
import './agents';
import './health';
import './keys';
import './services';
import './discovery';
import './admin';
import './account';
import './wallets';
import './webhooks';
import './execution';
import './tickets';
import './disputes';

export const schema = builder.toSchema({ sortSchema: true });
