-- Aggregates: plain, grouped, DISTINCT, FILTER, grouping sets.
-- name: agg_count_star
SELECT count(*) AS n FROM w;
-- name: agg_count_column
SELECT count(s) AS a, count(i) AS b FROM w;
-- name: agg_sum_int_widths
SELECT sum(ti) AS a, sum(si) AS b, sum(i) AS c, sum(bi) AS d, sum(hi) AS e FROM w;
-- name: agg_sum_unsigned
SELECT sum(uti) AS a, sum(usi) AS b, sum(ui) AS c, sum(ubi) AS d FROM u;
-- name: agg_sum_decimals
SELECT sum(d1) AS a, sum(d2) AS b, sum(d4) AS c, sum(d10) AS d FROM w;
-- name: agg_sum_floats
SELECT sum(f) AS a, sum(r) AS b FROM w WHERE abs(f) < 1e100;
-- name: agg_min_max_all_types
SELECT min(ti), max(si), min(i), max(bi), min(hi), min(d2), max(d10), min(f), max(s), min(dt), max(ts), min(b), max(b) FROM w;
-- name: agg_avg
SELECT avg(i) AS a, avg(d2) AS b, avg(f) AS c FROM w WHERE abs(f) < 1e100;
-- name: agg_group_by_int
SELECT k, count(*) AS n, sum(i) AS s FROM w GROUP BY k;
-- name: agg_group_by_string
SELECT g, count(*) AS n, min(s) AS lo, max(s) AS hi FROM w GROUP BY g;
-- name: agg_group_by_two
SELECT k, g, count(*) AS n FROM w GROUP BY k, g;
-- name: agg_group_by_date
SELECT dt, count(*) AS n FROM w GROUP BY dt;
-- name: agg_group_by_bool
SELECT b, count(*) AS n, sum(d2) AS s FROM w GROUP BY b;
-- name: agg_group_by_decimal
SELECT d1, count(*) AS n FROM w GROUP BY d1;
-- name: agg_group_by_expression
SELECT k % 2 AS parity, sum(bi) AS s FROM w GROUP BY k % 2;
-- name: agg_having
SELECT g, count(*) AS n FROM w GROUP BY g HAVING count(*) > 1;
-- name: agg_having_sum
SELECT k, sum(d2) AS s FROM w GROUP BY k HAVING sum(d2) > 0;
-- name: agg_empty_input
SELECT count(*) AS n, sum(i) AS s, min(s) AS m FROM w WHERE id > 100;
-- name: agg_empty_grouped
SELECT k, count(*) AS n FROM w WHERE id > 100 GROUP BY k;
-- name: agg_count_distinct
SELECT count(DISTINCT k) AS a, count(DISTINCT g) AS b FROM w;
-- name: agg_sum_distinct
SELECT sum(DISTINCT i) AS a, sum(DISTINCT d2) AS b FROM w;
-- name: agg_distinct_grouped
SELECT g, count(DISTINCT s) AS a, count(*) AS n FROM w GROUP BY g;
-- name: agg_filter_clause
SELECT count(*) FILTER (WHERE b) AS t, count(*) FILTER (WHERE NOT b) AS f FROM w;
-- name: agg_filter_grouped
SELECT k, sum(i) FILTER (WHERE i > 0) AS pos, sum(i) FILTER (WHERE i < 0) AS neg FROM w GROUP BY k;
-- name: agg_filter_and_distinct
SELECT count(DISTINCT k) FILTER (WHERE b) AS a FROM w;
-- name: agg_bool_and_or
SELECT g, bool_and(b) AS a, bool_or(b) AS o FROM w GROUP BY g;
-- name: agg_any_value_single
SELECT k, any_value(k) AS a FROM w GROUP BY k;
-- name: agg_stddev_variance
SELECT stddev_samp(f) AS a, var_samp(f) AS b, stddev_pop(i) AS c FROM w WHERE abs(f) < 1e100;
-- name: agg_grouping_sets
SELECT k, g, count(*) AS n FROM w GROUP BY GROUPING SETS ((k), (g), ());
-- name: agg_rollup
SELECT k, g, sum(i) AS s FROM w GROUP BY ROLLUP (k, g);
-- name: agg_cube
SELECT k, b, count(*) AS n FROM w GROUP BY CUBE (k, b);
-- name: agg_grouping_fn
SELECT k, g, grouping(k) AS gk, grouping(g) AS gg, count(*) AS n FROM w GROUP BY ROLLUP (k, g);
-- name: agg_over_join
SELECT dim.name, count(*) AS n, sum(w.i) AS s FROM w JOIN dim ON w.k = dim.k GROUP BY dim.name;
-- name: agg_of_expression
SELECT sum(i * 2 + 1) AS a, max(length(s)) AS b FROM w WHERE id NOT IN (3, 4);
-- name: agg_count_of_all_nulls
SELECT count(i) AS a, sum(i) AS b, max(s) AS c FROM w WHERE id = 7;
-- name: agg_interval
SELECT count(iv) AS n, min(iv) AS lo, max(iv) AS hi FROM sp;
-- name: agg_rollup_no_measures
SELECT k, g FROM w GROUP BY ROLLUP (k, g);
-- name: agg_grouping_sets_empty_input
SELECT k, count(*) AS n, sum(i) AS s FROM w WHERE id > 100 GROUP BY GROUPING SETS ((k), ());
-- name: agg_cube_filter_distinct
SELECT g, b, count(DISTINCT k) AS dk, sum(i) FILTER (WHERE i > 0) AS pos FROM w GROUP BY CUBE (g, b);
-- name: agg_grouping_sets_decimal_date
SELECT dt, d1, grouping(dt, d1) AS gid, sum(d2) AS s FROM w GROUP BY GROUPING SETS ((dt), (d1), (dt, d1));
-- name: agg_min_max_unsigned
SELECT min(uti) AS a, max(uti) AS b, min(usi) AS c, max(usi) AS d, min(ui) AS e, max(ui) AS f, min(ubi) AS g, max(ubi) AS h FROM u;
-- name: agg_unsigned_by_group
SELECT uti, min(ubi) AS lo, max(ubi) AS hi, sum(ubi) AS s, avg(usi) AS m, count(*) AS n FROM u GROUP BY uti;
