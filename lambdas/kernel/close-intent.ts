/**
 * The owner's wish to end the conversation ("never mind", "close this", "cancel"), after seed
 * 000's `_CLOSE_RE`, but recognised only when the WHOLE message means it: a short dismissal,
 * optionally followed by a closing remark ("thanks", "it works now", "my bad"). A message that
 * goes on to report more ("never mind, it still crashes on Safari", "Stop! it now also deletes
 * my cart", "Ignore this, the real error is a 500") is part of the conversation: closing on it
 * would drop the very report the person is making. Anything unsure is not a close; the agent
 * still reads the message and can end the conversation itself.
 */

/** Longer than this, a message says more than "close it" (the longest closing table entry has 9). */
const MAX_WORDS = 12;

/** The dismissal that opens the message, as a whole clause. */
const DISMISSAL = new RegExp(
  `^(?:please\\s+)?(?:${[
    'never\\s*mind(?:\\s+(?:this|it|me))?',
    'nvm',
    '(?:you\\s+can\\s+|please\\s+)?close\\s+(?:this|it|the\\s+(?:bug|issue|ticket|report))(?:\\s+please)?',
    'cancel(?:\\s+(?:this|it))?(?:\\s+please)?',
    'stop(?:\\s+(?:this|it))?(?:\\s+please)?',
    '(?:please\\s+)?(?:ignore|disregard)\\s+(?:this|it|my\\s+(?:report|message))(?:\\s+please)?',
    "(?:this\\s+is\\s+|it\\s+is\\s+|it'?s\\s+)?(?:no\\s+longer\\s+an?\\s+issue|not\\s+an?\\s+issue\\s+anymore)",
    'false\\s+alarm',
  ].join('|')})$`,
  'i',
);

/** Remarks that may follow a dismissal without adding anything to investigate. */
const CLOSING_REMARK = new RegExp(
  `^(?:${[
    'thanks?(?:\\s+(?:you|a\\s+lot|anyway))?',
    'thx',
    'ty',
    'sorry',
    'my\\s+bad',
    '(?:it\\s+was\\s+)?(?:my\\s+(?:mistake|fault)|user\\s+error)',
    "(?:it\\s+|it'?s\\s+|it\\s+is\\s+)?(?:works|working)(?:\\s+(?:now|again|fine))*",
    "(?:it'?s\\s+|it\\s+is\\s+)?(?:fixed|resolved|solved|sorted)(?:\\s+(?:now|itself))?",
    '(?:i\\s+)?(?:fixed|found|solved|figured)\\s+it(?:\\s+out)?',
    'all\\s+good',
    'false\\s+alarm',
    'not\\s+a\\s+bug',
    'no\\s+longer\\s+needed',
    'please',
  ].join('|')})$`,
  'i',
);

/** Clause boundaries: punctuation, dashes, and the emoji or symbols people end a line with. */
const CLAUSE_BREAK =
  /(?:[.,;:!?\u2013\u2014()]|\s-+\s|\p{Extended_Pictographic}|\p{Emoji_Modifier}|\ufe0f)+/u;

export function isCloseIntent(text: string): boolean {
  const clauses = text
    // Slack renders :pray: and friends as text: they are decoration, not content.
    .replace(/:[a-z0-9_+-]+:/gi, ' ')
    .replace(/[\u2018\u2019]/g, "'")
    .split(CLAUSE_BREAK)
    .map((clause) => clause.replace(/\s+/g, ' ').trim())
    .filter((clause) => clause !== '');
  const [first, ...rest] = clauses;
  if (first === undefined || !opensWithDismissal(first)) return false;
  const words = clauses.join(' ').split(' ').length;
  if (words > MAX_WORDS) return false;
  return rest.every((clause) => CLOSING_REMARK.test(clause) || DISMISSAL.test(clause));
}

/** A dismissal, alone or run on into a closing remark without punctuation ("nvm it's fixed"). */
function opensWithDismissal(clause: string): boolean {
  if (DISMISSAL.test(clause)) return true;
  const words = clause.split(' ');
  for (let cut = 1; cut < words.length; cut += 1) {
    const head = words.slice(0, cut).join(' ');
    const tail = words.slice(cut).join(' ');
    if (DISMISSAL.test(head) && CLOSING_REMARK.test(tail)) return true;
  }
  return false;
}
