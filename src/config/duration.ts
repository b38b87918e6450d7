// Durations in configuration: `15m`, `1h`, `7d`, `900s`, or a bare number of seconds.
const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };
const DURATION = /^(\d{1,9})([smhd])?$/;

/** Parses a duration into whole seconds; returns undefined when the text is not one of the accepted forms. */
export function parseDurationSeconds(text: string): number | undefined {
  const match = DURATION.exec(text.trim());
  if (!match) return undefined;
  const seconds = Number(match[1]) * UNIT_SECONDS[match[2] ?? 's'];
  return seconds > 0 ? seconds : undefined;
}
