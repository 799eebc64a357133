-- Functions of every family the producer maps, with NULL arguments.
-- name: fn_abs
SELECT id, abs(i) AS a, abs(d2) AS b, abs(f) AS c FROM w WHERE id <> 4;
-- name: fn_negate
SELECT id, -i AS a, -d4 AS b, -f AS c FROM w WHERE id <> 4;
-- name: fn_negate_wide
SELECT id, -hi AS a, -d10 AS b, -d1 AS c FROM w;
-- name: fn_modulus
SELECT id, bi % 7 AS a, k % 2 AS b FROM w;
-- name: fn_sign
SELECT id, sign(ti) AS a, sign(si) AS b, sign(i) AS c, sign(bi) AS d FROM w;
-- name: fn_sign_double
SELECT id, sign(f) AS b FROM w;
-- name: fn_round
SELECT id, round(f, 1) AS a, round(f, 0) AS b FROM w WHERE abs(f) < 1e100;
-- name: fn_round_decimal
SELECT id, round(d4, 2) AS b FROM w;
-- name: fn_ceil_floor
SELECT id, ceil(f) AS a, floor(f) AS b FROM w WHERE abs(f) < 1e100;
-- name: fn_ceil_floor_decimal
SELECT id, ceil(d2) AS c, floor(d2) AS d FROM w;
-- name: fn_sqrt_power
SELECT id, sqrt(abs(f)) AS a, power(k, 2) AS b FROM w WHERE abs(f) < 1e100;
-- name: fn_exp_ln
SELECT id, exp(k) AS a, ln(abs(f) + 1) AS b, log10(abs(f) + 1) AS c FROM w WHERE abs(f) < 1e100;
-- name: fn_greatest_least
SELECT id, greatest(i, k, 3) AS a, least(si, k) AS b FROM w;
-- name: fn_compare_ops
SELECT id, i < k AS lt, i <= k AS le, i > k AS gt, i >= k AS ge, i = k AS eq, i <> k AS ne FROM w;
-- name: fn_is_null
SELECT id, s IS NULL AS a, s IS NOT NULL AS b FROM w;
-- name: fn_distinct_from
SELECT id, k IS DISTINCT FROM 2 AS a, k IS NOT DISTINCT FROM NULL AS b FROM w;
-- name: fn_between
SELECT id, i BETWEEN 0 AND 100 AS a, dt BETWEEN DATE '2000-01-01' AND DATE '2024-01-31' AS b FROM w;
-- name: fn_coalesce
SELECT id, coalesce(s, g, 'none') AS a, coalesce(i, bi) AS b FROM w;
-- name: fn_nullif
SELECT id, nullif(k, 1) AS a, nullif(s, '') AS b FROM w;
-- name: fn_case_searched
SELECT id, CASE WHEN i > 100 THEN 'big' WHEN i < 0 THEN 'neg' WHEN i IS NULL THEN 'null' ELSE 'small' END AS c FROM w;
-- name: fn_case_simple
SELECT id, CASE g WHEN 'a' THEN 1 WHEN 'b' THEN 2 END AS c FROM w;
-- name: fn_if
SELECT id, if(b, s, g) AS c FROM w;
-- name: str_lower_upper
SELECT id, lower(s) AS a, upper(s) AS b FROM w;
-- name: str_length
SELECT id, length(s) AS a FROM w;
-- name: str_substring
SELECT id, substring(s, 2, 3) AS a, substr(s, 1, 1) AS b FROM w;
-- name: str_concat
SELECT id, concat(s, '-', g) AS a, s || g AS b FROM w;
-- name: str_trim
SELECT id, trim(s) AS a, ltrim(s) AS b, rtrim(s) AS c FROM w;
-- name: str_prefix_suffix
SELECT id, starts_with(s, 'a') AS a, ends_with(s, 'e') AS b, prefix(s, 'ch') AS c, suffix(s, 'y') AS d FROM w;
-- name: str_contains
SELECT id, contains(s, 'pp') AS a FROM w;
-- name: str_replace
SELECT id, replace(s, 'p', 'P') AS a FROM w;
-- name: str_reverse
SELECT id, reverse(s) AS a FROM w;
-- name: str_strpos
SELECT id, strpos(s, 'e') AS a FROM w;
-- name: str_lpad_rpad
SELECT id, lpad(s, 8, '*') AS a, rpad(s, 8, '.') AS b FROM w;
-- name: str_repeat
SELECT id, repeat(g, 3) AS a FROM w;
-- name: str_left_right
SELECT id, left(s, 2) AS a, right(s, 2) AS b FROM w;
-- name: str_like_escape
SELECT id FROM w WHERE s LIKE '%e_';
-- name: str_regexp
SELECT id, regexp_matches(s, '^[a-c]') AS a FROM w;
-- name: date_extract
SELECT id, extract(year FROM dt) AS y, extract(month FROM dt) AS m, extract(day FROM dt) AS d FROM w;
-- name: date_part_fns
SELECT id, year(dt) AS y, month(dt) AS m, day(dt) AS d, quarter(dt) AS q FROM w;
-- name: date_dow
SELECT id, dayofweek(dt) AS a, dayofyear(dt) AS b FROM w;
-- name: timestamp_extract
SELECT id, hour(ts) AS h, minute(ts) AS m, second(ts) AS s FROM w;
-- name: date_trunc_month
SELECT id, date_trunc('month', dt) AS a FROM w;
-- name: timestamp_trunc_day
SELECT id, date_trunc('day', ts) AS a FROM w;
-- name: date_diff_days
SELECT id, date_diff('day', dt, DATE '2025-01-01') AS a FROM w;
-- name: date_add_fn
SELECT id, date_add(dt, INTERVAL 2 DAY) AS a FROM w;
-- name: date_make
SELECT id, make_date(2024, k, 1) AS a FROM w WHERE k BETWEEN 1 AND 12;
-- name: strftime_date
SELECT id, strftime(dt, '%Y/%m/%d') AS a FROM w;
-- name: bool_equality
SELECT id, (k > 1) = (i > 1) AS a, (k > 1) <> (i > 1) AS x FROM w;
