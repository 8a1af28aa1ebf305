/**
 * Bedrock model ids as the stack configuration gives them (`model.id` with
 * `model.provider: bedrock`): either a foundation model id, `anthropic.<model>[:<version>]`
 * (e.g. `anthropic.claude-opus-4-1-20250805-v1:0`), invoked in the stack's region, or a
 * system-defined cross-region inference profile id, `<geography>.<foundation model id>`
 * (e.g. `global.anthropic.claude-sonnet-5-5`, the form the Bedrock SDK's README uses), which
 * Bedrock routes to the model in one of the geography's regions.
 */

/** The model agent turns use on Bedrock when the configuration names none: Sonnet 5.5 through the global inference profile. */
export const DEFAULT_BEDROCK_MODEL_ID = 'global.anthropic.claude-sonnet-5-5';

/** Geographies of Bedrock's system-defined inference profiles (the id's prefix). */
const GEOGRAPHIES = ['global', 'us', 'us-gov', 'eu', 'apac', 'jp', 'au', 'ca'] as const;

const BEDROCK_MODEL_ID = /^(?:([a-z]+(?:-[a-z]+)?)\.)?(anthropic\.[a-z0-9][a-z0-9-]*(?::[0-9]+)?)$/;

export interface BedrockModelRef {
  /** The id as configured: what the client puts in `/model/{id}/invoke`. */
  readonly id: string;
  /** The foundation model behind it. */
  readonly foundationModelId: string;
  /** Set when `id` is an inference profile id: its geography prefix. */
  readonly geography?: string;
}

/** Parses a Bedrock model or inference profile id; undefined when it is neither (or not an Anthropic model). */
export function parseBedrockModelId(id: string): BedrockModelRef | undefined {
  const match = BEDROCK_MODEL_ID.exec(id);
  const [, geography, foundationModelId] = match ?? [];
  if (foundationModelId === undefined) return undefined;
  if (geography === undefined) return { id, foundationModelId };
  if (!(GEOGRAPHIES as readonly string[]).includes(geography)) return undefined;
  return { id, foundationModelId, geography };
}

/** The message a configuration error gives for a non-Bedrock id. */
export const BEDROCK_ID_EXPECTED = `expected a Bedrock model id (anthropic.<model>) or an inference profile id (${GEOGRAPHIES.join('|')}.anthropic.<model>), e.g. ${DEFAULT_BEDROCK_MODEL_ID}`;
