export class InvalidRedactionSettingsError extends Error {
  override readonly name = 'InvalidRedactionSettingsError';
  constructor(variable: string, options: { cause: unknown }) {
    super(`${variable} is not valid redaction settings (JSON { pii, allow })`, options);
  }
}
