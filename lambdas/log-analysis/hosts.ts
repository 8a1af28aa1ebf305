/**
 * Host names and IPv6 addresses inside a word: values however many labels or groups they
 * have. Top-level domains from IANA's root zone: the generic ones hosts mostly use (RFC 920
 * and later) and the two-letter country codes, which are ISO 3166-1 alpha-2 codes (RFC 1591)
 * plus `uk`, `eu` and `ac`.
 */
import { WILDCARD } from './mask.ts';

const GENERIC = 'com|net|org|edu|gov|mil|int|info|biz|io|local|localdomain|internal|arpa|cloud|dev|app';
const COUNTRIES = new Set(
  (
    'ac ad ae af ag ai al am ao aq ar as at au aw ax az ba bb bd be bf bg bh bi bj bl bm bn bo bq br bs ' +
    'bt bv bw by bz ca cc cd cf cg ch ci ck cl cm cn co cr cu cv cw cx cy cz de dj dk dm do dz ec ee eg ' +
    'eh er es et eu fi fj fk fm fo fr ga gb gd ge gf gg gh gi gl gm gn gp gq gr gs gt gu gw gy hk hm hn ' +
    'hr ht hu id ie il im in io iq ir is it je jm jo jp ke kg kh ki km kn kp kr kw ky kz la lb lc li lk ' +
    'lr ls lt lu lv ly ma mc md me mf mg mh mk ml mm mn mo mp mq mr ms mt mu mv mw mx my mz na nc ne nf ' +
    'ng ni nl no np nr nu nz om pa pe pf pg ph pk pl pm pn pr ps pt pw py qa re ro rs ru rw sa sb sc sd ' +
    'se sg sh si sj sk sl sm sn so sr ss st sv sx sy sz tc td tf tg th tj tk tl tm tn to tr tt tv tw tz ' +
    'ua ug uk um us uy uz va vc ve vg vi vn vu wf ws ye yt za zm zw'
  ).split(' '),
);

// HOST_HINT is a cheap test before the full one: a dot, then two to eleven lower-case letters at the end of a name.
const HOST_HINT = /\.[a-z]{2,11}(?![A-Za-z0-9.-])/;
// A generic domain after one label or more; a two-letter one (checked against COUNTRIES) after
// two labels or more, since one label and two letters is as often a file (`main.py`, `libc.so`).
const HOST_NAME = new RegExp(
  `(^|[^A-Za-z0-9.-])((?:[A-Za-z0-9][A-Za-z0-9-]*\\.)+(?:${GENERIC})|(?:[A-Za-z0-9][A-Za-z0-9-]*\\.){2,}([a-z]{2}))(?![A-Za-z0-9.-])`,
  'g',
);
// Dotted words ending in a country code are also property and package names (`mapred.task.id`,
// `app.config.in`). One is a host name when it shows what machine names have and those do not:
// a digit or a hyphen in a label, or a second-level domain under the country (`example.co.uk`).
const MACHINE_LABEL = /[0-9-]/;
const SECOND_LEVEL = /\.(?:co|com|net|org|ac|edu|gov|go|ne|or)\.[a-z]{2}$/;

function countryHost(name: string, country: string): boolean {
  return COUNTRIES.has(country) && (MACHINE_LABEL.test(name) || SECOND_LEVEL.test(name));
}

// IPv6 (RFC 4291): up to eight groups of one to four hex digits joined by colons, compressed
// with one `::` or all eight written; a candidate run is checked by `isIpv6`.
const HEX_COLONS = /(^|[^0-9A-Za-z:])([0-9A-Fa-f:]{3,})(?![0-9A-Za-z:])/g;
const GROUP = /^[0-9A-Fa-f]{1,4}$/;

function isIpv6(run: string): boolean {
  if (!/\d/.test(run)) return false;
  const halves = run.split('::');
  if (halves.length > 2) return false;
  const groups = halves.flatMap((h) => (h === '' ? [] : h.split(':')));
  if (!groups.every((g) => GROUP.test(g))) return false;
  return halves.length === 2 ? groups.length <= 7 : groups.length === 8;
}

function colons(text: string, from: number): number {
  let n = 0;
  for (let i = from; i >= 0; i = text.indexOf(':', i + 1)) n++;
  return n;
}

/** `word` with its host names and IPv6 addresses written as `<*>`. */
export function maskHosts(word: string): string {
  let out = word;
  if (out.includes('.') && HOST_HINT.test(out)) {
    out = out.replace(HOST_NAME, (match, before: string, name: string, country?: string) =>
      country === undefined || countryHost(name, country) ? before + WILDCARD : match,
    );
  }
  const colon = out.indexOf(':');
  if (colon >= 0 && (out.includes('::') || colons(out, colon) >= 7)) {
    out = out.replace(HEX_COLONS, (match, before: string, run: string) =>
      isIpv6(run) ? before + WILDCARD : match,
    );
  }
  return out;
}
