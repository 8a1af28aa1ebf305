import * as z from 'zod';
import { RedactionSettings } from '../lambdas/redaction/config.ts';

/** The configuration of the redaction layer and of Bedrock's guardrail (spread into the kernel's fields). */
export const RedactionConfigFields = {
  /**
   * The redaction layer (docs/security-redaction.md): secrets are always replaced by typed
   * placeholders before any prompt and in everything the platform writes out; `pii` names the
   * classes of personal data redacted too (`email`, `phone`, `card`, `iban`, `ip`), `allow`
   * the values left alone.
   * @default { pii: ['card'], allow: [] }
   */
  redaction: RedactionSettings.prefault({}),
  /**
   * Amazon Bedrock options, with `model.provider: bedrock`. `guardrail`: a Bedrock Guardrail
   * (`id` its identifier or ARN, `version` a number or `DRAFT`) applied to every model call
   * (docs/security-redaction.md says what it adds); the functions may apply it.
   * @default {}
   */
  bedrock: z
    .strictObject({
      guardrail: z
        .strictObject({
          id: z
            .string()
            .regex(
              /^(?:[a-z0-9]+|arn:aws[a-z-]*:bedrock:[a-z0-9-]+:[0-9]{12}:guardrail\/[a-z0-9]+)$/,
              'expected a guardrail id or ARN',
            ),
          version: z
            .string()
            .regex(/^(?:[1-9][0-9]{0,7}|DRAFT)$/, 'expected a guardrail version: a number or DRAFT'),
        })
        .optional(),
    })
    .prefault({}),
};

export const BedrockGuardrail = RedactionConfigFields.bedrock.unwrap().shape.guardrail.unwrap();
export type BedrockGuardrail = z.infer<typeof BedrockGuardrail>;

/** A guardrail is Bedrock's: with another provider it would be silently ignored, so the synth refuses it. */
export function guardrailProblems(config: {
  model: { provider: string };
  bedrock: { guardrail?: BedrockGuardrail | undefined };
}): Array<{ path: string; message: string }> {
  if (config.bedrock.guardrail === undefined || config.model.provider === 'bedrock') return [];
  return [{ path: 'bedrock.guardrail', message: 'applies only with model.provider bedrock' }];
}
