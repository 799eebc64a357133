-- Every comparison join type, delim joins, any-joins and cross products,
-- with NULL keys, duplicate keys and unmatched rows on both sides.
-- name: join_inner
SELECT w.id, dim.name FROM w JOIN dim ON w.k = dim.k;
-- name: join_inner_two_keys
SELECT w.id, dim.name FROM w JOIN dim ON w.k = dim.k AND w.d2 > dim.score;
-- name: join_inner_string_key
SELECT a.id, b.id AS other FROM w a JOIN w b ON a.s = b.s AND a.id < b.id;
-- name: join_inner_date_key
SELECT w.id, dim.name FROM w JOIN dim ON w.dt = dim.since;
-- name: join_left
SELECT w.id, dim.name, dim.score FROM w LEFT JOIN dim ON w.k = dim.k;
-- name: join_right
SELECT w.id, dim.name FROM w RIGHT JOIN dim ON w.k = dim.k;
-- name: join_full
SELECT w.id, dim.name FROM w FULL JOIN dim ON w.k = dim.k;
-- name: join_full_no_match
SELECT w.id, n.v FROM w FULL JOIN nothing n ON w.k = n.k;
-- name: join_left_extra_condition
SELECT w.id, dim.name FROM w LEFT JOIN dim ON w.k = dim.k AND dim.score > 0;
-- name: join_semi_exists
SELECT id FROM w WHERE EXISTS (SELECT 1 FROM dim WHERE dim.k = w.k);
-- name: join_anti_not_exists
SELECT id FROM w WHERE NOT EXISTS (SELECT 1 FROM dim WHERE dim.k = w.k);
-- name: join_semi_in
SELECT id FROM w WHERE k IN (SELECT k FROM dim);
-- name: join_anti_not_in
SELECT id FROM w WHERE k NOT IN (SELECT k FROM dim WHERE k IS NOT NULL);
-- name: join_not_in_with_null
SELECT id FROM w WHERE k NOT IN (SELECT k FROM dim);
-- name: join_mark_in_projection
SELECT id, k IN (SELECT k FROM dim) AS found FROM w;
-- name: join_mark_or
SELECT id FROM w WHERE k IN (SELECT k FROM dim) OR g = 'c';
-- name: join_single_scalar_subquery
SELECT id, (SELECT max(score) FROM dim) AS best FROM w;
-- name: join_correlated_scalar
SELECT id, (SELECT max(score) FROM dim WHERE dim.k = w.k) AS best FROM w;
-- name: join_correlated_count
SELECT id, (SELECT count(*) FROM dim WHERE dim.k = w.k) AS n FROM w;
-- name: join_correlated_exists_nonequi
SELECT id FROM w WHERE EXISTS (SELECT 1 FROM dim WHERE dim.k = w.k AND dim.score < w.d2);
-- name: join_correlated_compare
SELECT id FROM w WHERE i > (SELECT avg(i) FROM w w2 WHERE w2.g = w.g);
-- name: join_any_inequality
SELECT w.id, dim.name FROM w JOIN dim ON w.k < dim.k;
-- name: join_any_or_condition
SELECT w.id, dim.name FROM w JOIN dim ON w.k = dim.k OR w.g = dim.name;
-- name: join_left_inequality
SELECT w.id, dim.name FROM w LEFT JOIN dim ON w.d2 < dim.score;
-- name: join_cross
SELECT w.id, dim.name FROM w CROSS JOIN dim;
-- name: join_cross_filtered
SELECT a.id, b.id AS id2 FROM w a, w b WHERE a.id + b.id = 12;
-- name: join_three_way
SELECT w.id, d1.name, d2.name AS name2 FROM w JOIN dim d1 ON w.k = d1.k JOIN dim d2 ON d1.k = d2.k;
-- name: join_left_then_inner
SELECT w.id, dim.name, ev.amt FROM w LEFT JOIN dim ON w.k = dim.k JOIN ev ON ev.seq = w.k;
-- name: join_self
SELECT a.id, b.id AS other FROM w a JOIN w b ON a.k = b.k AND a.id <> b.id;
-- name: join_empty_side
SELECT w.id, n.v FROM w JOIN nothing n ON w.k = n.k;
-- name: join_left_empty_side
SELECT w.id, n.v FROM w LEFT JOIN nothing n ON w.k = n.k;
-- name: join_is_not_distinct
SELECT w.id, dim.name FROM w JOIN dim ON w.k IS NOT DISTINCT FROM dim.k;
-- name: join_using
SELECT k, w.id, dim.name FROM w JOIN dim USING (k);
-- name: join_natural_like
SELECT count(*) AS n FROM w a JOIN w b ON a.g = b.g;
-- name: join_decimal_key
SELECT a.id, b.id AS other FROM w a JOIN w b ON a.d2 = b.d2 AND a.id < b.id;
-- name: join_lateral_agg
SELECT dim.name, x.n FROM dim, LATERAL (SELECT count(*) AS n FROM w WHERE w.k = dim.k) x;
-- name: join_unsigned_keys
SELECT a.id, b.id AS other, a.ubi FROM u a JOIN u b ON a.ubi = b.ubi AND a.id < b.id;
-- name: join_unsigned_signed_keys
SELECT u.id, w.id AS wid, u.uti, w.ti FROM u JOIN w ON u.uti = w.ti;
-- name: join_ubigint_bigint
SELECT u.id, w.id AS wid, u.ubi FROM u LEFT JOIN w ON u.ubi = w.bi;
