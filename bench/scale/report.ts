import type { Outcome } from './measure';
import type { StatementPlan } from './plans';
import type { ScaleEngine } from './settings';

// What one engine's run found, and the tables printed from it: p50 / p99 per size for each page kind, the
// ratio of the biggest size to the smallest (the cost of holding many rows), notes and errors on their own lines.

export interface KindRow {
  id: string;
  title: string;
  /** Keyed by the size (rows of the owner, or users in the table). */
  bySize: Record<number, Outcome>;
}

export interface EngineReport {
  engine: ScaleEngine;
  version: string;
  sizes: number[];
  seedingSeconds: { notes: Record<number, number> & { indexes?: number }; users: Record<number, number> };
  notes: KindRow[];
  /** The admin's first page over every owner's rows (the sum of the sizes). */
  admin: { rows: number; outcome: Outcome };
  users: KindRow[];
  /** Per page kind, the statements the store ran for the biggest owner (or the biggest users table) and their plans. */
  plans: { kind: string; statements: StatementPlan[] }[];
}

const ENGINE_TITLES: Record<ScaleEngine, string> = { sqlite: 'SQLite', postgres: 'PostgreSQL', mysql: 'MariaDB/MySQL' };

const count = (n: number) => n.toLocaleString('en-US');
const ms = (value: number) => (value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2));

function cell(outcome: Outcome | undefined): string {
  if (!outcome) return '';
  if ('figures' in outcome) return `${ms(outcome.figures.p50Ms)} / ${ms(outcome.figures.p99Ms)}`;
  return 'skipped' in outcome ? 'skipped' : 'ERROR';
}

/** p50 of the biggest size ÷ p50 of the smallest, when both were measured. */
export function ratio(row: KindRow, sizes: readonly number[]): number | undefined {
  const small = row.bySize[sizes[0]!];
  const big = row.bySize[sizes.at(-1)!];
  return small && big && 'figures' in small && 'figures' in big ? big.figures.p50Ms / small.figures.p50Ms : undefined;
}

const formatRatio = (value: number | undefined) =>
  value === undefined ? '' : `${value < 10 ? value.toFixed(1) : value.toFixed(0)}x`;

function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((title, index) => Math.max(title.length, ...rows.map((row) => row[index]?.length ?? 0)));
  const line = (cells: string[]) =>
    cells
      .map((text, index) => (index === 0 ? text.padEnd(widths[index]!) : text.padStart(widths[index]!)))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.map(line)];
}

/** Notes, skips and errors of a list of rows: one line per row and message, naming the sizes it held at. */
function remarks(rows: readonly KindRow[], label: (size: number) => string): string[] {
  const lines: string[] = [];
  for (const row of rows) {
    const bySentence = new Map<string, number[]>();
    for (const [size, outcome] of Object.entries(row.bySize)) {
      const sentence =
        'error' in outcome
          ? `error: ${outcome.error}`
          : 'skipped' in outcome
            ? `note: skipped, ${outcome.skipped}`
            : outcome.figures.note
              ? `note: ${outcome.figures.note}`
              : undefined;
      if (sentence) bySentence.set(sentence, [...(bySentence.get(sentence) ?? []), Number(size)]);
    }
    for (const [sentence, sizes] of bySentence) {
      const [kind, text] = [sentence.slice(0, sentence.indexOf(':')), sentence.slice(sentence.indexOf(':') + 2)];
      const where =
        sizes.length === Object.keys(row.bySize).length && sizes.length > 1
          ? 'every size'
          : sizes.map(label).join(', ');
      lines.push(`  ${kind}: ${row.title} (${where}): ${text}`);
    }
  }
  return lines;
}

/** Printed plans keep their shape and row counts; buffers and planning lines stay in the JSON report. */
const worthPrinting = (line: string) => !/^\s*(Buffers:|Planning( Time)?:?)/.test(line);
const clip = (text: string) => (text.length > 220 ? `${text.slice(0, 219)}…` : text);

export function renderEngine(report: EngineReport, pageSize: number): string {
  const { sizes } = report;
  const out: string[] = [];
  out.push('', `== ${ENGINE_TITLES[report.engine]} ${report.version} ==`);
  const seeded = (figures: Record<number, number>) =>
    sizes
      .map((size) => (figures[size] === undefined ? undefined : `${count(size)} in ${figures[size]!.toFixed(1)} s`))
      .filter(Boolean);
  const indexes =
    report.seedingSeconds.notes.indexes === undefined
      ? ''
      : `, list indexes built over them in ${report.seedingSeconds.notes.indexes.toFixed(1)} s`;
  out.push(
    `seeding: notes ${seeded(report.seedingSeconds.notes).join(', ')}${indexes}; users (up to) ${seeded(report.seedingSeconds.users).join(', ')}`,
  );
  out.push(
    '',
    `notes, one owner per size, ${pageSize} a page: p50 / p99 ms; ratio = p50 of the ${count(sizes.at(-1)!)}-row owner ÷ the ${count(sizes[0]!)}-row owner's`,
  );
  const header = ['page kind', ...sizes.map((size) => `${count(size)} rows`), 'ratio'];
  const rows = report.notes.map((row) => [
    row.title,
    ...sizes.map((size) => cell(row.bySize[size])),
    formatRatio(ratio(row, sizes)),
  ]);
  const reference = report.notes[0]?.bySize[sizes[0]!];
  const adminRatio =
    reference && 'figures' in reference && 'figures' in report.admin.outcome
      ? report.admin.outcome.figures.p50Ms / reference.figures.p50Ms
      : undefined;
  rows.push([
    `admin, every owner (${count(report.admin.rows)} rows)*`,
    ...sizes.map((_, index) => (index === sizes.length - 1 ? cell(report.admin.outcome) : '')),
    formatRatio(adminRatio),
  ]);
  out.push(...table(header, rows));
  out.push(
    `  * the admin's first page, default order, over all owners' rows; ratio to the ${count(sizes[0]!)}-row owner's first page`,
  );
  out.push(...remarks(report.notes, (size) => `${count(size)}-row owner`));
  if ('error' in report.admin.outcome) out.push(`  error: admin first page: ${report.admin.outcome.error}`);
  if (report.users.length > 0) {
    out.push(
      '',
      `GET /api/users (admin), users table at each size, ${pageSize} a page: p50 / p99 ms; ratio = biggest ÷ smallest table`,
    );
    const userHeader = ['page kind', ...sizes.map((size) => `${count(size)} users`), 'ratio'];
    out.push(
      ...table(
        userHeader,
        report.users.map((row) => [
          row.title,
          ...sizes.map((size) => cell(row.bySize[size])),
          formatRatio(ratio(row, sizes)),
        ]),
      ),
    );
    out.push(...remarks(report.users, (size) => `${count(size)} users`));
  }
  if (report.plans.length > 0) {
    out.push('', `query plans for the biggest owner (${count(sizes.at(-1)!)} rows; users: ${count(sizes.at(-1)!)}):`);
    for (const { kind, statements } of report.plans) {
      out.push(`-- ${kind}`);
      for (const statement of statements)
        out.push(
          `   ${clip(statement.sql)}`,
          ...statement.plan.filter(worthPrinting).map((line) => `     ${clip(line)}`),
        );
    }
  }
  return out.join('\n');
}
