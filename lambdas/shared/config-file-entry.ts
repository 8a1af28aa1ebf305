/**
 * Injected first into every function bundle (esbuild `inject`, infra/constructs/kernel-function.ts):
 * the configuration file's variables are in the environment before any module reads it.
 */
import { applyConfigFile } from './config-file.ts';

applyConfigFile();
