/**
 * Values shaped like real credentials and personal data, built at run time from a seeded
 * generator, so no token-shaped literal sits in the repository (secret scanners, push
 * protection) and every run sees the same values.
 */
export function fakeValues(seed = 7) {
  let state = seed;
  const next = () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state;
  };
  const pick = (alphabet: string, length: number) =>
    Array.from({ length }, () => alphabet[next() % alphabet.length]).join('');
  const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  const MIXED = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  const DIGITS = '0123456789';
  return {
    awsAccessKey: ['AK', 'IA', pick(UPPER, 16)].join(''),
    awsSecretKey: pick(`${MIXED}/+`, 40),
    githubToken: ['gh', 'p_', pick(MIXED, 36)].join(''),
    slackToken: ['xo', 'xb-', pick(DIGITS, 12), '-', pick(DIGITS, 13), '-', pick(MIXED, 24)].join(''),
    dbPassword: `Pw${pick(MIXED, 14)}9`,
    apiKey: `${pick(MIXED, 20)}7q`,
    email: `${pick('abcdefghij', 6)}.doe@example.org`,
    phone: `+44 20 ${pick('123456789', 4)} ${pick(DIGITS, 4)}`,
    // A Visa-shaped number completed to pass the Luhn check.
    card: withLuhnDigit(`4${pick(DIGITS, 14)}`),
    iban: 'GB82 WEST 1234 5698 7654 32',
    ip: `10.${next() % 250}.${next() % 250}.${(next() % 250) + 1}`,
  };
}

/** Every value of `fakeValues`, as a list (what a test looks for where none may be). */
export function everyValue(values: ReturnType<typeof fakeValues>): string[] {
  return Object.values(values);
}

export function withLuhnDigit(body: string): string {
  for (let check = 0; check <= 9; check += 1) {
    const candidate = `${body}${check}`;
    let sum = 0;
    for (let index = 0; index < candidate.length; index += 1) {
      let digit = Number(candidate[candidate.length - 1 - index]);
      if (index % 2 === 1) {
        digit *= 2;
        if (digit > 9) digit -= 9;
      }
      sum += digit;
    }
    if (sum % 10 === 0) return candidate;
  }
  throw new Error('unreachable: one check digit always completes the sum');
}

/** Formats a 16-digit card as printed: four groups of four. */
export function grouped(card: string): string {
  return card.replace(/(\d{4})(?=\d)/g, '$1 ');
}
