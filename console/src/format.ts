/** Small formatting helpers shared by the views. */

/** A Slack ts (`seconds.micros`) as a Date. */
export function tsDate(ts: string): Date {
  return new Date(Number.parseFloat(ts) * 1000);
}

export function clock(date: Date): string {
  return date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

/** `+1.234 s` after `start`. */
export function elapsed(start: Date, at: Date): string {
  const ms = at.getTime() - start.getTime();
  return ms < 60_000
    ? `+${(ms / 1000).toFixed(3)} s`
    : `+${Math.floor(ms / 60_000)} min ${((ms % 60_000) / 1000).toFixed(1)} s`;
}

/** A JSON string (as history events carry), pretty printed; other text as it is. */
export function prettyJson(value: unknown): string {
  if (typeof value === 'string') {
    try {
      return JSON.stringify(JSON.parse(value), null, 2);
    } catch {
      return value;
    }
  }
  return JSON.stringify(value, null, 2) ?? String(value);
}

/** `bug_investigation` -> `Bug investigation`. */
export function humanize(name: string): string {
  const words = name.replace(/[_-]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

export function number(value: number | undefined): string {
  return (value ?? 0).toLocaleString('en-US');
}

export function initials(name: string): string {
  const parts = name.split(/[\s._-]+/).filter(Boolean);
  return ((parts[0]?.[0] ?? '?') + (parts[1]?.[0] ?? '')).toUpperCase();
}

/** A stable hue per user id, for avatars. */
export function hue(id: string): number {
  let hash = 0;
  for (const c of id) hash = (hash * 31 + c.charCodeAt(0)) % 360;
  return hash;
}
