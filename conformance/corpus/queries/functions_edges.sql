-- Edge values and NULL arguments of the DuckDB functions that need more
-- than a name lookup in the producer (duckdb-bridge/producer_funcs_duckdb.go).
-- name: fn_round_decimal_digits
SELECT id, round(d4, 0) AS a, round(d4, -1) AS b, round(d4, 3) AS c, round(d4, 6) AS e, round(d2, 1) AS f, round(d1, -2) AS g FROM w;
-- name: fn_round_decimal_half_away
SELECT x, round(x, 1) AS a, round(x, 0) AS b, round(x, -1) AS c FROM (VALUES (2.25::DECIMAL(6,2)), (-2.25), (2.35), (-0.05), (0.05), (25.00), (-25.00), (14.99), (NULL)) t(x);
-- name: fn_round_decimal_arith
SELECT id, round(d4, 2) + 1 AS a, round(d2, 1) > 5 AS b FROM w WHERE id NOT IN (3, 4);
-- name: fn_round_decimal_all_digits
SELECT id, round(d1, -3) AS a FROM w;
-- name: fn_sign_double_edges
-- NaN and infinities cannot be plan constants (DuckDB writes them into its
-- plan JSON as bare NaN/Infinity): duckdb-bridge/corpus_fns_test.go has them.
SELECT id, sign(x) AS s FROM (VALUES (1, 0.0::DOUBLE), (2, -0.0::DOUBLE), (3, -1e-300::DOUBLE), (4, 5e-324::DOUBLE), (5, 1.7e308::DOUBLE), (6, NULL)) t(id, x);
-- name: fn_sign_real
SELECT id, sign(r) AS a, sign(f) * 2 AS b FROM w;
-- name: str_left_right_edges
SELECT id, left(s, 0) AS a, left(s, 100) AS b, right(s, 100) AS c, right(s, -2) AS d, right(s, 0) AS e, right(s, -100) AS f FROM w;
-- name: str_left_right_unicode
SELECT x, left(x, 2) AS a, right(x, 2) AS b, right(x, -1) AS c FROM (VALUES ('ææããa'), ('😔😄😔😄'), ('e' || chr(769) || 'x'), (''), (NULL)) t(x);
-- name: str_left_negative
SELECT id, left(s, -2) AS a FROM w;
-- name: date_dow_parts
SELECT id, dayofweek(dt) AS a, isodow(dt) AS b, weekday(dt) AS c, date_part('dow', dt) AS d, date_part('isodow', dt) AS e, dayofyear(dt) AS f FROM w;
-- name: date_dow_values
SELECT d, dayofweek(d) AS a, isodow(d) AS b, dayofyear(d) AS c FROM (VALUES (DATE '1969-12-28'), (DATE '1970-01-01'), (DATE '0001-01-01'), (DATE '2000-02-29'), (DATE '2024-12-31'), (DATE '1582-10-15'), (NULL)) t(d);
-- name: date_dow_timestamp
SELECT id, dayofweek(ts) AS a, isodow(ts) AS b FROM w;
-- name: date_make_values
SELECT y, m, d, make_date(y, m, d) AS a FROM (VALUES (2024, 2, 29), (2023, 12, 31), (0, 1, 1), (-1, 12, 31), (1970, 1, 1), (5881580, 7, 10), (-5877641, 6, 25), (NULL, 1, 1), (2024, NULL, 1), (2024, 1, NULL)) t(y, m, d);
-- name: date_make_columns
SELECT id, make_date(bi, 1, 1) AS a, make_date(2000, k, k) AS b FROM w WHERE id NOT IN (3, 4);
-- name: timestamp_minus_timestamp_edges
SELECT id, ts - TIMESTAMP '2024-01-15 10:30:00.000001' AS a, TIMESTAMP '1970-01-01' - ts AS b FROM w;
-- name: interval_compare_ops
SELECT id, iv > INTERVAL 1 DAY AS a, iv >= INTERVAL 30 DAY AS b, iv < INTERVAL '-1 hour' AS c, iv = INTERVAL 90 SECOND AS d FROM sp;
-- name: interval_compare_normalized
SELECT k, a > b AS gt, a = b AS eq, a < b AS lt FROM (VALUES (1, INTERVAL '1 month -1 day', INTERVAL '29 days'), (2, INTERVAL '25 hours', INTERVAL '1 day 1 hour'), (3, INTERVAL 30 DAY, INTERVAL 1 MONTH), (4, NULL, INTERVAL 1 DAY), (5, INTERVAL '-1 day 1 hour', INTERVAL '-23 hours')) t(k, a, b);
-- name: fn_round_decimal_sum
SELECT g, round(sum(d4), 4) AS a, round(sum(d2), 3) AS b, round(sum(d1), 1) AS c FROM w WHERE id NOT IN (3, 4) GROUP BY g;
-- name: fn_round_decimal_38
SELECT g, round(sum(d4), 2) AS a FROM w GROUP BY g;
