-- Table scans, pushed filters and projections, filters over every type.
-- name: scan_all
SELECT * FROM w;
-- name: scan_one_column
SELECT s FROM w;
-- name: scan_reordered
SELECT b, id, dt FROM w;
-- name: filter_int_eq
SELECT id, i FROM w WHERE i = 5;
-- name: filter_int_range
SELECT id, bi FROM w WHERE bi BETWEEN -1000 AND 2000;
-- name: filter_tinyint
SELECT id, ti FROM w WHERE ti < 0;
-- name: filter_smallint
SELECT id, si FROM w WHERE si >= 20;
-- name: filter_hugeint
SELECT id, hi FROM w WHERE hi > 100;
-- name: filter_unsigned
SELECT id, uti, usi, ui, ubi FROM u WHERE ubi > 1000 OR uti = 0;
-- name: filter_decimal_small
SELECT id, d1 FROM w WHERE d1 > 1.0;
-- name: filter_decimal_9
SELECT id, d2 FROM w WHERE d2 <= 10.25;
-- name: filter_decimal_18
SELECT id, d4 FROM w WHERE d4 <> 0;
-- name: filter_decimal_38
SELECT id, d10 FROM w WHERE d10 < 0;
-- name: filter_double
SELECT id, f FROM w WHERE f > 1.0;
-- name: filter_real
SELECT id, r FROM w WHERE r < 2;
-- name: filter_varchar_eq
SELECT id, s FROM w WHERE s = 'apple';
-- name: filter_varchar_empty
SELECT id FROM w WHERE s = '';
-- name: filter_varchar_range
SELECT id, s FROM w WHERE s > 'b' AND s < 'd';
-- name: filter_date
SELECT id, dt FROM w WHERE dt >= DATE '2024-01-01';
-- name: filter_timestamp
SELECT id, ts FROM w WHERE ts < TIMESTAMP '2000-01-01 00:00:00';
-- name: filter_boolean
SELECT id FROM w WHERE b;
-- name: filter_not_boolean
SELECT id FROM w WHERE NOT b;
-- name: filter_in_list
SELECT id FROM w WHERE k IN (1, 3, 5);
-- name: filter_not_in_list
SELECT id FROM w WHERE k NOT IN (1, 3);
-- name: filter_in_strings
SELECT id FROM w WHERE g IN ('a', 'e', 'zz');
-- name: filter_or_and
SELECT id FROM w WHERE (k = 1 AND b) OR (k = 5 AND NOT b) OR g = 'd';
-- name: filter_computed
SELECT id FROM w WHERE k * 10 + ti > 15;
-- name: filter_like
SELECT id, s FROM w WHERE s LIKE 'app%';
-- name: filter_not_like
SELECT id, s FROM w WHERE s NOT LIKE '%e%';
-- name: filter_ilike
SELECT id, s FROM w WHERE s ILIKE 'APP%';
-- name: project_expressions
SELECT id, i * 2 AS twice, bi - i AS diff, s || '!' AS shout, NOT b AS nb FROM w WHERE id NOT IN (3, 4);
-- name: project_constant
SELECT 42 AS answer, 'x' AS letter, NULL AS nothing_here FROM w;
-- name: parquet_scan_all
SELECT * FROM read_parquet('../conformance/corpus/data/w.parquet');
-- name: parquet_scan_filtered
SELECT id, s, d2 FROM read_parquet('../conformance/corpus/data/w.parquet') WHERE i > 0 AND s IS NOT NULL;
-- name: parquet_aggregate
SELECT k, count(*) AS n, sum(d10) AS s FROM read_parquet('../conformance/corpus/data/w.parquet') GROUP BY k;
-- name: parquet_join_table
SELECT p.id, dim.name FROM read_parquet('../conformance/corpus/data/w.parquet') p JOIN dim ON p.k = dim.k;
-- name: csv_scan
SELECT * FROM read_csv('../conformance/corpus/data/dim.csv');
-- name: filter_ubigint_high
SELECT id, ubi FROM u WHERE ubi >= 9223372036854775808;
-- name: filter_unsigned_ranges
SELECT id, uti, usi, ui FROM u WHERE uti BETWEEN 2 AND 128 AND usi <> 20 OR ui IN (7, 2147483648, 4294967295);
