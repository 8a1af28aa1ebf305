/** The protected-paths variable is not the JSON of a valid setting (a deployment that bypassed synth's check). */
export class InvalidProtectedPathsError extends Error {
  override readonly name = 'InvalidProtectedPathsError';
}
