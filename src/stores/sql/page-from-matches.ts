import type { Model, ModelStatic, QueryTypes as SequelizeQueryTypes, WhereOptions } from 'sequelize';
import { boundedSelect } from './bounded-count';

// PostgreSQL, a search its trigram indexes serve, once the short walk of the order fell short (list-page.ts): the
// page is read from the term's matches, at most SEARCH_MATCH_BOUND of them, then ordered. Asked for an ordered
// page with a LIMIT, the planner takes `LIKE '%…%'` to hold a fixed share of the rows whatever the term, so for a
// term whose trigrams are common in the table but whose matches are few it walks the sort index expecting to meet
// the page soon, and reads every row of the owner instead (5.2 s for the owner of 10^7 rows, against 0.1 s through
// the indexes). A subquery with a LIMIT of its own and no order is planned apart, for all of its rows: through the
// indexes. A term with more matches than the bound is common enough for a walk of the order to find the page
// soon: the caller reads as before, and the planner chooses.

/** The most matches a page is sorted from; more, and the page is read in the order's index instead. */
export const SEARCH_MATCH_BOUND = 10_000;

/** One key of a page's order, by the attribute's name in the answer. */
export interface OrderTerm {
  attribute: string;
  descending: boolean;
  nulls?: 'FIRST' | 'LAST';
}

const MATCHES = 'searchMatches';

/**
 * The rows of the page (`attributes` of the rows `where` selects, in `order`, `limit` after `offset`), read
 * from the matches; undefined when there are more than SEARCH_MATCH_BOUND of them.
 */
export async function pageFromMatches(
  model: ModelStatic<Model>,
  attributes: readonly string[],
  where: WhereOptions,
  order: readonly OrderTerm[],
  limit: number,
  offset: number,
): Promise<Record<string, unknown>[] | undefined> {
  const sequelize = model.sequelize!;
  const { QueryTypes } = sequelize.constructor as unknown as { QueryTypes: typeof SequelizeQueryTypes };
  const quote = (name: string) => sequelize.getQueryInterface().quoteIdentifier(name);
  const inner = boundedSelect(model, attributes, where, SEARCH_MATCH_BOUND + 1);
  const orderBy = order
    .map(
      ({ attribute, descending, nulls }) =>
        `${quote(attribute)} ${descending ? 'DESC' : 'ASC'}${nulls ? ` NULLS ${nulls}` : ''}`,
    )
    .join(', ');
  const rows = await sequelize.query<Record<string, unknown>>(
    `SELECT *, COUNT(*) OVER () AS ${quote(MATCHES)} FROM (${inner}) AS matches ORDER BY ${orderBy} LIMIT ${limit} OFFSET ${offset}`,
    { type: QueryTypes.SELECT },
  );
  // No row past an offset says nothing of the count: the caller's read answers.
  if (rows.length === 0) return offset > 0 ? undefined : rows;
  return Number(rows[0]![MATCHES]) > SEARCH_MATCH_BOUND ? undefined : rows;
}
