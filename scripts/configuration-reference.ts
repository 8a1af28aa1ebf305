/** `npm run docs:config`: writes docs/configuration.md from the configuration's schema. */
import { writeFileSync } from 'node:fs';
import { renderConfigurationReference } from '../infra/config-reference.ts';

writeFileSync(new URL('../docs/configuration.md', import.meta.url), renderConfigurationReference());
