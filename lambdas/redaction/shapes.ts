import type { Finding } from './findings.ts';
import { compile, eachLine, entropy, matches } from './scan.ts';

/**
 * Secrets no vendor rule names, found by their shape: the value of a key whose name says it is
 * secret (`password=`, `api_key:`, `"client_secret": "..."`), a bearer token, and the password
 * in a URL's user info (`scheme://user:password@host`). A value is taken when it is long and
 * random enough (entropy), or whatever it is after a password's key; short, plain values
 * (`token_count=3`, `auth=true`) stay, and so do request ids, hashes and durations under keys
 * that do not say secret. A session id (`sessionid: 0x14ede63a5a70002` in ZooKeeper's logs) is
 * an id investigations follow, not taken; a session token or a cookie is a credential.
 */

const SECRET_KEY_NAMES =
  '(?:pass(?:word|wd|phrase)?|pwd|secret|token|api[_.-]?key|apikey|access[_.-]?key|private[_.-]?key|client[_.-]?secret|credentials?|session[_.-]?(?:token|key|secret)|cookie|signature|auth(?:orization)?)';
const KEY_VALUE = compile(
  `([A-Za-z0-9_.-]*${SECRET_KEY_NAMES}[A-Za-z0-9_.-]*)["']?\\s*(?::|=|=>)\\s*["']?([^\\s"'\`,;&<>(){}\\[\\]]{4,256})`,
  true,
);
const PASSWORD_KEY = compile(`(?:pass(?:word|wd|phrase)?|pwd)`, true);
const BEARER = compile('\\b(?:bearer|token)\\s+([A-Za-z0-9._~+/=-]{16,512})', true);
const URL_PASSWORD = compile(
  '\\b[A-Za-z][A-Za-z0-9+.-]{1,30}://[^\\s:/@<>\'"]{1,256}:([^\\s@/<>\'"]{1,256})@',
);

/** Bits per character above which a value after a secret key is taken as a secret. */
export const MIN_ENTROPY = 3;
/** Characters a value needs to be judged by its entropy. */
export const MIN_RANDOM_LENGTH = 8;

/** Words one of which a line must hold for the key=value and bearer patterns to run on it. */
const SECRET_WORDS = /pass|pwd|secret|token|key|credential|session|cookie|signature|auth|bearer/i;

export function findShapes(text: string): Finding[] {
  const keyValues = eachLine(
    text,
    (line) => SECRET_WORDS.test(line),
    function* (line) {
      const matcher = KEY_VALUE().matcher(line);
      while (matcher.find()) {
        const value = matcher.group(2) ?? '';
        const start = matcher.start(2);
        const password = PASSWORD_KEY()
          .matcher(matcher.group(1) ?? '')
          .find();
        if (looksLikeAValue(value) && (password || looksRandom(value)))
          yield { start, end: start + value.length, kind: password ? 'password' : 'key-value-secret' };
      }
      for (const match of matches(BEARER(), line, 1))
        if (looksRandom(match.value)) yield { start: match.start, end: match.end, kind: 'bearer-token' };
    },
  );
  const urls = eachLine(
    text,
    (line) => line.includes('://') && line.includes('@'),
    function* (line) {
      for (const match of matches(URL_PASSWORD(), line, 1))
        yield { start: match.start, end: match.end, kind: 'connection-password' };
    },
  );
  return [...keyValues, ...urls].map((hit) => ({ ...hit, family: 'secret' }));
}

/** Not a variable, an empty marker or a masked value: `${DB_PASSWORD}`, `null`, `****`. */
function looksLikeAValue(value: string): boolean {
  if (/^(?:null|none|nil|undefined|true|false|\*+|x+|redacted|<.*)$/i.test(value)) return false;
  return !/^[$%]/.test(value);
}

function looksRandom(value: string): boolean {
  return (
    value.length >= MIN_RANDOM_LENGTH &&
    entropy(value) >= MIN_ENTROPY &&
    /[0-9]/.test(value) &&
    /[A-Za-z]/.test(value)
  );
}
