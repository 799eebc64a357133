-- CTEs, VALUES lists and queries whose result is empty.
-- name: cte_simple
WITH big AS (SELECT id, i FROM w WHERE i > 0) SELECT * FROM big;
-- name: cte_used_twice
WITH g AS (SELECT k, count(*) AS n FROM w GROUP BY k) SELECT a.k, a.n, b.n AS n2 FROM g a JOIN g b ON a.k = b.k;
-- name: cte_chain
WITH a AS (SELECT id, k FROM w), b AS (SELECT k, count(*) AS n FROM a GROUP BY k) SELECT * FROM b WHERE n > 1;
-- name: cte_materialized
WITH m AS MATERIALIZED (SELECT k, sum(i) AS s FROM w GROUP BY k) SELECT x.k, x.s FROM m x JOIN m y ON x.k = y.k;
-- name: cte_in_subquery
WITH keys AS (SELECT k FROM dim WHERE score > 0) SELECT id FROM w WHERE k IN (SELECT k FROM keys);
-- name: values_plain
SELECT * FROM (VALUES (1, 'a'), (2, 'b'), (3, NULL)) t(x, y);
-- name: values_types
SELECT * FROM (VALUES (1::TINYINT, 2.5::DECIMAL(9,2), DATE '2024-01-01', true), (NULL, NULL, NULL, NULL)) t(a, b, c, d);
-- name: values_joined
SELECT w.id, v.label FROM w JOIN (VALUES (1, 'first'), (2, 'second'), (NULL, 'none')) v(k, label) ON w.k = v.k;
-- name: values_aggregated
SELECT sum(x) AS s, count(y) AS c FROM (VALUES (1, 'a'), (2, NULL), (NULL, 'c')) t(x, y);
-- name: values_in_cte
WITH v(x) AS (VALUES (10), (20), (30)) SELECT x * 2 AS y FROM v;
-- name: values_single_row
SELECT * FROM (VALUES (42)) t(x);
-- name: select_without_from
SELECT 1 + 2 AS three, 'x' || 'y' AS xy;
-- name: empty_false_filter
SELECT id FROM w WHERE false;
-- name: empty_contradiction
SELECT id FROM w WHERE i > 10 AND i < 5;
-- name: empty_table_scan
SELECT * FROM nothing;
-- name: empty_table_aggregate
SELECT count(*) AS n, max(v) AS m FROM nothing;
-- name: empty_table_grouped
SELECT k, count(*) AS n FROM nothing GROUP BY k;
-- name: empty_join
SELECT w.id FROM w JOIN nothing ON w.k = nothing.k WHERE w.id > 0;
-- name: empty_limit
SELECT id FROM w WHERE id < 0 ORDER BY id LIMIT 3;
