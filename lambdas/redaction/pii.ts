import type { PiiClass } from './config.ts';
import type { Finding } from './findings.ts';
import { acceptedMatches, compile, digitCount, eachLine, matches, standsAlone } from './scan.ts';

/**
 * Personal data by class. Each class is a linear-time pattern plus a check in code where the
 * shape alone would take too much: cards must pass the Luhn check and start like a card
 * network's number (so 13-digit epoch milliseconds stay), IBANs must pass ISO 13616's mod-97
 * check, IPv4 octets must be at most 255 and a dotted version (`1.2.3.4.5`) is not an address.
 */

const EMAIL = compile(
  '[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\\.[A-Za-z0-9-]{1,63}){0,8}\\.[A-Za-z]{2,24}',
);
// An international number (+ and 7 to 15 digits, separators allowed), or a national one
// written with separators (`(555) 123-4567`, `555-123-4567`): bare digit runs are ids, not phones.
const PHONE = compile(
  '\\+[1-9][0-9]{0,2}(?:[ .-]?\\(?[0-9]{1,4}\\)?){2,5}[0-9]|\\(?[0-9]{3}\\)?[ .-][0-9]{3}[ .-][0-9]{4}',
);
// Unbroken, or in the groups cards are printed in (4-4-4-4, Amex's 4-6-5): a run that only
// begins like a card (`4111 1111 1111 1111 22`) is still cut where the card ends.
const CARD = compile(
  '[0-9]{13,19}|[0-9]{4}[ -][0-9]{4}[ -][0-9]{4}[ -][0-9]{4}|[0-9]{4}[ -][0-9]{6}[ -][0-9]{4,5}',
);
const IBAN = compile('[A-Z]{2}[0-9]{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?');
const IPV4 = compile('(?:[0-9]{1,3}\\.){3}[0-9]{1,3}');
const IPV6 = compile('[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7}');

const ADDRESS_AROUND = /[0-9A-Za-z.]/;
const HEX_AROUND = /[0-9A-Za-z:]/;

type Check = (value: string, text: string, start: number, end: number) => boolean;

const CLASSES: Record<
  PiiClass,
  { pattern: ReturnType<typeof compile>; check: Check; wanted: (line: string) => boolean }
> = {
  email: {
    pattern: EMAIL,
    wanted: (line) => line.includes('@'),
    check: (_v, text, start, end) => standsAlone(text, start, end, /[A-Za-z0-9._%+-]/),
  },
  phone: {
    pattern: PHONE,
    wanted: (line) => digitCount(line, 7) >= 7,
    check: (value, text, start, end) => {
      const digits = value.replace(/[^0-9]/g, '').length;
      return digits >= 7 && digits <= 15 && standsAlone(text, start, end, /[0-9A-Za-z]/);
    },
  },
  card: {
    pattern: CARD,
    wanted: (line) => digitCount(line, 13) >= 13,
    check: (value, text, start, end) => {
      const digits = value.replace(/[^0-9]/g, '');
      return notAnId(text, start, end) && cardNetworkPrefix(digits) && luhn(digits);
    },
  },
  iban: {
    pattern: IBAN,
    wanted: (line) => digitCount(line, 12) >= 12,
    check: (value, text, start, end) => standsAlone(text, start, end, /[A-Za-z0-9]/) && ibanChecksum(value),
  },
  ip: {
    pattern: IPV4,
    wanted: (line) => line.includes('.') && digitCount(line, 4) >= 4,
    check: (value, text, start, end) =>
      standsAlone(text, start, end, ADDRESS_AROUND) &&
      value.split('.').every((octet) => Number(octet) <= 255),
  },
};

/** The personal data of the enabled classes in `text`. */
export function findPii(text: string, classes: readonly PiiClass[]): Finding[] {
  const found: Finding[] = [];
  for (const kind of classes) {
    const { pattern, check, wanted } = CLASSES[kind];
    const hits = eachLine(text, wanted, (line) =>
      acceptedMatches(pattern(), line, (value, start, end) => check(value, line, start, end)),
    );
    for (const hit of hits) found.push({ start: hit.start, end: hit.end, family: 'pii', kind });
    if (kind === 'ip') {
      const v6 = eachLine(
        text,
        (line) => line.includes('::') || colonCount(line) >= 7,
        function* (line) {
          for (const match of matches(IPV6(), line))
            if (isIpv6(match.value) && standsAlone(line, match.start, match.end, HEX_AROUND)) yield match;
        },
      );
      for (const hit of v6) found.push({ start: hit.start, end: hit.end, family: 'pii', kind });
    }
  }
  return found;
}

/** The Luhn check (ISO/IEC 7812-1 Annex B): doubling every second digit from the right. */
function luhn(digits: string): boolean {
  let sum = 0;
  for (let index = 0; index < digits.length; index += 1) {
    let digit = Number(digits[digits.length - 1 - index]);
    if (index % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

/**
 * Issuer prefixes of the card networks (Visa 4; Mastercard 51-55 and 2221-2720; American
 * Express 34, 37; Discover 6011, 644-649, 65; Diners 36, 38, 300-305; JCB 3528-3589; UnionPay 62),
 * with the lengths each issues.
 */
function cardNetworkPrefix(digits: string): boolean {
  const n = digits.length;
  const two = Number(digits.slice(0, 2));
  const four = Number(digits.slice(0, 4));
  if (digits[0] === '4') return n === 13 || n === 16 || n === 19;
  if ((two >= 51 && two <= 55) || (four >= 2221 && four <= 2720)) return n === 16;
  if (two === 34 || two === 37) return n === 15;
  if (four === 6011 || two === 65 || (four >= 6440 && four <= 6499) || two === 62) return n >= 16 && n <= 19;
  if (two === 36 || two === 38 || (four >= 3000 && four <= 3059)) return n >= 14 && n <= 19;
  if (four >= 3528 && four <= 3589) return n >= 16 && n <= 19;
  return false;
}

/** ISO 13616: the country and check digits moved to the end, letters as 10..35, mod 97 is 1. */
function ibanChecksum(value: string): boolean {
  const compact = value.replace(/ /g, '');
  if (compact.length < 15 || compact.length > 34) return false;
  const moved = compact.slice(4) + compact.slice(0, 4);
  let remainder = 0;
  for (const char of moved) {
    const code = char.charCodeAt(0);
    const chunk = code >= 65 ? String(code - 55) : char;
    for (const digit of chunk) remainder = (remainder * 10 + Number(digit)) % 97;
  }
  return remainder === 1;
}

/** Eight groups, or fewer with one `::`; a time of day (`12:30:45`) is neither. */
function isIpv6(value: string): boolean {
  const compressed = value.split('::').length - 1;
  if (compressed > 1) return false;
  const groups = value.split(':').filter((group) => group !== '');
  if (compressed === 0) return groups.length === 8;
  return groups.length >= 1 && groups.length <= 7 && value.length > 2;
}

function colonCount(line: string): number {
  let count = 0;
  for (let index = line.indexOf(':'); index >= 0 && count < 7; index = line.indexOf(':', index + 1))
    count += 1;
  return count;
}

/**
 * A number glued to a word is an id, not a card: `blk_-4980916519894289629` (an HDFS block),
 * `order-4111...`, `id4111...`. A card stands alone, or after a sign that follows no word.
 */
function notAnId(text: string, start: number, end: number): boolean {
  if (!standsAlone(text, start, end, /[A-Za-z0-9_]/)) return false;
  const before = text[start - 1];
  return !((before === '-' || before === '+') && /[A-Za-z0-9_]/.test(text[start - 2] ?? ''));
}
