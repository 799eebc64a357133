-- ORDER BY, top-n, LIMIT/OFFSET and DISTINCT. Limits are taken over a total
-- order (id is unique) so the answer is deterministic.
-- name: order_by_int
SELECT id, i FROM w ORDER BY i, id;
-- name: order_by_desc_nulls
SELECT id, s FROM w ORDER BY s DESC NULLS LAST, id;
-- name: order_by_nulls_first
SELECT id, k FROM w ORDER BY k NULLS FIRST, id DESC;
-- name: order_by_expression
SELECT id FROM w WHERE id NOT IN (3, 4) ORDER BY i * -1, id;
-- name: order_by_date
SELECT id, dt FROM w ORDER BY dt, id;
-- name: order_by_decimal_desc
SELECT id, d10 FROM w ORDER BY d10 DESC, id;
-- name: topn_int
SELECT id, bi FROM w ORDER BY bi DESC NULLS LAST, id LIMIT 3;
-- name: topn_string
SELECT id, s FROM w ORDER BY s, id LIMIT 4;
-- name: limit_plain_ordered
SELECT id FROM w ORDER BY id LIMIT 5;
-- name: limit_offset
SELECT id FROM w ORDER BY id LIMIT 3 OFFSET 4;
-- name: offset_only
SELECT id FROM w ORDER BY id OFFSET 9;
-- name: limit_zero
SELECT id FROM w LIMIT 0;
-- name: limit_over_all_equal
SELECT count(*) AS n FROM (SELECT k FROM w LIMIT 4) t;
-- name: limit_after_aggregate
SELECT k, count(*) AS n FROM w GROUP BY k ORDER BY k NULLS LAST LIMIT 2;
-- name: distinct_one
SELECT DISTINCT k FROM w;
-- name: distinct_many
SELECT DISTINCT g, b FROM w;
-- name: distinct_strings
SELECT DISTINCT s FROM w;
-- name: distinct_ordered
SELECT DISTINCT g FROM w ORDER BY g NULLS FIRST;
-- name: distinct_on
SELECT DISTINCT ON (k) k, id FROM w ORDER BY k, id;
-- name: distinct_on_many
SELECT DISTINCT ON (g, b) g, b, id, s FROM w ORDER BY g DESC NULLS FIRST, b NULLS FIRST, id DESC;
-- name: distinct_on_other_order
SELECT DISTINCT ON (k) k, id, i FROM w ORDER BY id DESC;
-- name: distinct_on_expr
SELECT DISTINCT ON (k % 2) k, id, s FROM w ORDER BY k % 2 NULLS FIRST, s DESC NULLS LAST, id;
-- name: order_unsigned
SELECT id, ubi, uti FROM u ORDER BY ubi DESC NULLS LAST, uti NULLS FIRST, id LIMIT 6;
