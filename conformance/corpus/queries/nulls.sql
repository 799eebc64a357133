-- NULLs in keys, predicates, aggregate inputs and outputs.
-- name: null_predicate_filter
SELECT id FROM w WHERE i > 0 OR s IS NULL;
-- name: null_three_valued_and
SELECT id, (i > 0) AND (b) AS x FROM w;
-- name: null_three_valued_or
SELECT id, (i > 0) OR (b) AS x FROM w;
-- name: null_not
SELECT id FROM w WHERE NOT (i > 0);
-- name: null_in_list_with_null
SELECT id, k IN (1, NULL) AS x FROM w;
-- name: null_arith_propagates
SELECT id, i + NULL AS a, s || NULL AS b FROM w;
-- name: null_group_key
SELECT g, count(*) AS n, count(g) AS ng FROM w GROUP BY g;
-- name: null_two_group_keys
SELECT k, b, count(*) AS n FROM w GROUP BY k, b;
-- name: null_distinct
SELECT DISTINCT k, g FROM w WHERE k IS NULL OR g IS NULL;
-- name: null_join_keys_dropped
SELECT count(*) AS n FROM w a JOIN w b ON a.k = b.k;
-- name: null_sort_default
SELECT id, k FROM w ORDER BY k, id;
-- name: null_min_max_all_null_group
SELECT k, min(i) AS a, max(s) AS b, sum(d2) AS c FROM w GROUP BY k;
-- name: null_case_result
SELECT id, CASE WHEN k = 1 THEN NULL ELSE s END AS x FROM w;
-- name: null_coalesce_chain
SELECT id, coalesce(NULL, i, k, -1) AS x FROM w;
-- name: null_is_distinct_join_filter
SELECT a.id, b.id AS other FROM w a, w b WHERE a.g IS NOT DISTINCT FROM b.g AND a.id < b.id;
-- name: null_count_distinct_with_nulls
SELECT count(DISTINCT s) AS a, count(s) AS b, count(*) AS c FROM w;
-- name: null_outer_join_padding
SELECT w.id, dim.name, dim.score IS NULL AS missing FROM w LEFT JOIN dim ON w.k = dim.k;
-- name: null_literal_typed
SELECT id, CAST(NULL AS INTEGER) AS n, CAST(NULL AS VARCHAR) AS s2 FROM w;
-- name: null_unsigned
SELECT id, uti IS NULL AS a, coalesce(usi, 1) AS b, ui IS NOT DISTINCT FROM NULL AS c, ubi FROM u WHERE ubi IS NULL OR uti IS NULL OR ui IS NULL;
-- name: null_unsigned_aggregate
SELECT count(uti) AS a, count(usi) AS b, count(ubi) AS c, min(ui) AS d, max(ubi) AS e FROM u WHERE uti IS NULL;
