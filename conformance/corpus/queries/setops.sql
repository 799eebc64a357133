-- UNION / EXCEPT / INTERSECT, ALL and DISTINCT, with NULLs and duplicates.
-- name: union_all
SELECT k FROM w UNION ALL SELECT k FROM dim;
-- name: union_distinct
SELECT k FROM w UNION SELECT k FROM dim;
-- name: union_strings
SELECT g AS x FROM w UNION SELECT name FROM dim;
-- name: union_mixed_types
SELECT i AS x FROM w UNION ALL SELECT bi FROM w;
-- name: except_distinct
SELECT k FROM w EXCEPT SELECT k FROM dim;
-- name: except_all
SELECT k FROM w EXCEPT ALL SELECT k FROM dim;
-- name: intersect_distinct
SELECT k FROM w INTERSECT SELECT k FROM dim;
-- name: intersect_all
SELECT k FROM w INTERSECT ALL SELECT k FROM dim;
-- name: union_three
SELECT id AS x FROM w WHERE id < 3 UNION ALL SELECT k FROM dim UNION ALL SELECT seq FROM ev;
-- name: union_with_empty
SELECT k FROM w UNION ALL SELECT k FROM nothing;
-- name: except_two_columns
SELECT k, g FROM w EXCEPT SELECT k, name FROM dim;
-- name: intersect_two_columns
SELECT g, b FROM w INTERSECT SELECT g, b FROM w WHERE id > 5;
-- name: union_by_name
SELECT k, g FROM w UNION ALL BY NAME SELECT name AS g, k FROM dim;
-- name: union_then_aggregate
SELECT x, count(*) AS n FROM (SELECT k AS x FROM w UNION ALL SELECT k FROM dim) t GROUP BY x;
