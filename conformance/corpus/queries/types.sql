-- Every type through casts and arithmetic, with NULLs.
-- name: cast_int_widths
SELECT id, CAST(ti AS SMALLINT) AS a, CAST(si AS INTEGER) AS b, CAST(i AS BIGINT) AS c, CAST(bi AS HUGEINT) AS d FROM w;
-- name: cast_narrowing
SELECT id, CAST(k AS TINYINT) AS a, CAST(k AS SMALLINT) AS b FROM w;
-- name: cast_unsigned_to_signed
SELECT id, CAST(uti AS INTEGER) AS a, CAST(usi AS BIGINT) AS b, CAST(ui AS BIGINT) AS c, CAST(ubi AS HUGEINT) AS d FROM u;
-- name: cast_int_to_double
SELECT id, CAST(i AS DOUBLE) AS x, CAST(bi AS DOUBLE) AS y FROM w;
-- name: cast_int_to_decimal
SELECT id, CAST(si AS DECIMAL(9,2)) AS x, CAST(i AS DECIMAL(18,4)) AS y FROM w;
-- name: cast_decimal_rescale
SELECT id, CAST(d1 AS DECIMAL(9,2)) AS a, CAST(d2 AS DECIMAL(18,4)) AS b, CAST(d4 AS DECIMAL(38,10)) AS c FROM w;
-- name: cast_decimal_to_double
SELECT id, CAST(d2 AS DOUBLE) AS a, CAST(d10 AS DOUBLE) AS b FROM w;
-- name: cast_decimal_to_int
SELECT id, CAST(d2 AS BIGINT) AS a FROM w WHERE abs(d2) < 1000000;
-- name: cast_double_to_int
SELECT id, CAST(f AS INTEGER) AS a FROM w WHERE abs(f) < 1000;
-- name: cast_real_to_double
SELECT id, CAST(r AS DOUBLE) AS a FROM w;
-- name: cast_int_to_varchar
SELECT id, CAST(i AS VARCHAR) AS a, CAST(bi AS VARCHAR) AS b FROM w;
-- name: cast_varchar_to_int
SELECT CAST(s AS INTEGER) AS v FROM (VALUES ('1'), ('-20'), (NULL), ('300')) t(s);
-- name: cast_date_to_varchar
SELECT id, CAST(dt AS VARCHAR) AS a FROM w;
-- name: cast_varchar_to_date
SELECT CAST(s AS DATE) AS d FROM (VALUES ('2024-01-15'), (NULL), ('1999-12-31')) t(s);
-- name: cast_date_to_timestamp
SELECT id, CAST(dt AS TIMESTAMP) AS a FROM w;
-- name: cast_timestamp_to_date
SELECT id, CAST(ts AS DATE) AS a FROM w;
-- name: cast_bool_to_int
SELECT id, CAST(b AS INTEGER) AS a FROM w;
-- name: arith_mixed_widths
SELECT id, ti + si AS a, si * i AS b, i - bi AS c FROM w WHERE id <> 3 AND id <> 4;
-- name: arith_decimal
SELECT id, d1 + d2 AS a, d2 * d1 AS b, d4 - d2 AS c FROM w WHERE abs(d4) < 1000000;
-- name: arith_decimal_38
SELECT id, d10 + d10 AS a, d10 - 1 AS b FROM w WHERE id <> 3;
-- name: arith_double
SELECT id, f * 2 AS a, f / 4 AS b, f - r AS c FROM w WHERE abs(f) < 1e100;
-- name: arith_int_division
SELECT id, i / 2 AS a, i // 2 AS b, i % 3 AS c FROM w;
-- name: interval_values
SELECT id, iv FROM sp;
-- name: interval_plus_timestamp
SELECT w.id, w.ts + sp.iv AS later FROM w JOIN sp ON w.id = sp.id;
-- name: interval_filter
SELECT id FROM sp WHERE iv > INTERVAL 1 HOUR;
-- name: date_plus_interval
SELECT id, dt + INTERVAL 1 MONTH AS a, dt - INTERVAL 10 DAY AS b FROM w;
-- name: date_plus_int
SELECT id, dt + 7 AS a FROM w;
-- name: date_difference
SELECT id, dt - DATE '2000-01-01' AS days FROM w;
-- name: timestamp_minus_timestamp
SELECT id, ts - TIMESTAMP '2000-01-01 00:00:00' AS since FROM w;
-- name: boolean_logic
SELECT id, b AND k > 2 AS a, b OR k > 2 AS o, NOT b AS n FROM w;
-- name: boolean_compare
SELECT id, b = true AS a, b IS DISTINCT FROM false AS c FROM w;
-- name: unsigned_join_signed
SELECT w.id, u.uti + w.ti AS a, u.ubi FROM w JOIN u ON w.id = u.id WHERE w.id <> 3 AND w.id <> 4;
-- name: unsigned_group
SELECT uti, count(*) AS n FROM u GROUP BY uti;
-- name: cast_unsigned_widen
SELECT id, CAST(uti AS USMALLINT) AS a, CAST(usi AS UBIGINT) AS b, CAST(ui AS UBIGINT) AS c, CAST(uti AS VARCHAR) AS s, CAST(ubi AS VARCHAR) AS t FROM u;
-- name: cast_signed_to_unsigned
SELECT id, CAST(k AS UTINYINT) AS a FROM w;
-- name: unsigned_arithmetic
SELECT id, ubi // 2 AS a, uti % 7 AS b FROM u;
