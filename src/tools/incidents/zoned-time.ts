// Calendar arithmetic in a time zone (IANA), with the runtime's own Intl data: "one month after" a moment is the same
// wall-clock time a month later where the organization is, across daylight-saving changes.

interface WallTime {
  year: number;
  month: number; // 1..12
  day: number;
  hour: number;
  minute: number;
  second: number;
  millisecond: number;
}

const formats = new Map<string, Intl.DateTimeFormat>();

function formatIn(timeZone: string): Intl.DateTimeFormat {
  let format = formats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      hourCycle: 'h23',
    });
    formats.set(timeZone, format);
  }
  return format;
}

/** The wall-clock time at `time` (ms since the epoch) in `timeZone`. */
export function wallTimeAt(time: number, timeZone: string): WallTime {
  const parts: Record<string, number> = {};
  for (const part of formatIn(timeZone).formatToParts(time))
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  return {
    year: parts.year ?? 1970,
    month: parts.month ?? 1,
    day: parts.day ?? 1,
    hour: parts.hour ?? 0,
    minute: parts.minute ?? 0,
    second: parts.second ?? 0,
    millisecond: ((time % 1000) + 1000) % 1000,
  };
}

const asUtc = (wall: WallTime) =>
  Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second, wall.millisecond);

/**
 * The moment (ms) at which `timeZone`'s clocks show `wall`. A wall time skipped by a change to summer time is read
 * with the offset before the change (so it lands an hour later); one that happens twice takes the earlier moment.
 */
export function timeOfWall(wall: WallTime, timeZone: string): number {
  const target = asUtc(wall);
  // The zone's offset at a moment: what its clocks show minus the moment itself. A day either side of the wall time
  // gives the offsets before and after any change near it.
  const offsetAt = (time: number) => asUtc(wallTimeAt(time, timeZone)) - time;
  const before = target - offsetAt(target - 86_400_000);
  const after = target - offsetAt(target + 86_400_000);
  const showing = [before, after].filter((time) => asUtc(wallTimeAt(time, timeZone)) === target);
  return showing.length > 0 ? Math.min(...showing) : before;
}

/** `time` moved by whole calendar months in `timeZone`, the day kept or clamped to the month's last (31 Jan -> 28 Feb). */
export function addMonthsIn(time: number, months: number, timeZone: string): number {
  const wall = wallTimeAt(time, timeZone);
  const index = wall.year * 12 + (wall.month - 1) + months;
  const year = Math.floor(index / 12);
  const month = (index % 12) + 1;
  const lastDay = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return timeOfWall({ ...wall, year, month, day: Math.min(wall.day, lastDay) }, timeZone);
}
