-- Window functions: ranking, aggregates over partitions and frames, offsets.
-- Ordering keys are total (ties broken) wherever the result depends on order.
-- name: win_row_number
SELECT id, row_number() OVER (ORDER BY id) AS rn FROM w;
-- name: win_row_number_partition
SELECT id, k, row_number() OVER (PARTITION BY k ORDER BY id) AS rn FROM w;
-- name: win_rank_ties
SELECT grp, seq, rank() OVER (PARTITION BY grp ORDER BY seq) AS r, dense_rank() OVER (PARTITION BY grp ORDER BY seq) AS dr FROM ev;
-- name: win_sum_partition
SELECT id, k, sum(i) OVER (PARTITION BY k) AS s FROM w;
-- name: win_count_all
SELECT id, count(*) OVER () AS n FROM w;
-- name: win_running_sum
SELECT id, sum(bi) OVER (ORDER BY id) AS running FROM w;
-- name: win_running_sum_rows
SELECT id, sum(d2) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) AS s FROM w;
-- name: win_min_max
SELECT id, g, min(s) OVER (PARTITION BY g) AS lo, max(dt) OVER (PARTITION BY g) AS hi FROM w;
-- name: win_avg
SELECT grp, seq, avg(amt) OVER (PARTITION BY grp) AS a FROM ev;
-- name: win_lag_lead
SELECT id, lag(i) OVER (ORDER BY id) AS prev, lead(i, 2) OVER (ORDER BY id) AS next2 FROM w;
-- name: win_lag_default
SELECT id, lag(s, 1, 'none') OVER (PARTITION BY k ORDER BY id) AS prev FROM w;
-- name: win_first_last
SELECT id, first_value(s) OVER (PARTITION BY k ORDER BY id) AS f, last_value(s) OVER (PARTITION BY k ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS l FROM w;
-- name: win_ntile
SELECT id, ntile(3) OVER (ORDER BY id) AS t FROM w;
-- name: win_percent_rank
SELECT grp, seq, percent_rank() OVER (PARTITION BY grp ORDER BY seq) AS pr FROM ev;
-- name: win_nulls_partition_key
SELECT grp, seq, count(*) OVER (PARTITION BY grp) AS n FROM ev;
-- name: win_over_aggregate
SELECT k, sum(i) AS s, rank() OVER (ORDER BY sum(i) DESC NULLS LAST, k) AS r FROM w GROUP BY k;
-- name: win_filter_after
SELECT * FROM (SELECT id, row_number() OVER (PARTITION BY g ORDER BY id) AS rn FROM w) t WHERE rn = 1;
-- name: win_qualify
SELECT id, g FROM w QUALIFY row_number() OVER (PARTITION BY g ORDER BY id DESC) = 1;
-- name: win_range_frame
SELECT grp, seq, sum(amt) OVER (PARTITION BY grp ORDER BY seq RANGE BETWEEN 1 PRECEDING AND CURRENT ROW) AS s FROM ev;
-- name: win_range_frame_nulls
SELECT grp, seq, sum(amt) OVER (PARTITION BY grp ORDER BY seq NULLS FIRST RANGE BETWEEN 2 PRECEDING AND 1 FOLLOWING) AS s, count(*) OVER (ORDER BY seq RANGE BETWEEN CURRENT ROW AND 3 FOLLOWING) AS n FROM ev;
-- name: win_range_frame_decimal
SELECT id, d2, count(*) OVER (ORDER BY d2 RANGE BETWEEN 10 PRECEDING AND 10 FOLLOWING) AS n, sum(i) OVER (ORDER BY f RANGE BETWEEN 1 PRECEDING AND 0 FOLLOWING) AS s FROM w;
-- name: win_range_frame_desc
SELECT grp, seq, sum(amt) OVER (PARTITION BY grp ORDER BY seq DESC RANGE BETWEEN 1 PRECEDING AND CURRENT ROW) AS s FROM ev;
-- name: win_range_frame_date
SELECT id, dt, count(*) OVER (ORDER BY dt RANGE BETWEEN 30 PRECEDING AND CURRENT ROW) AS n FROM w;
-- name: win_two_windows
SELECT id, sum(i) OVER (PARTITION BY k) AS a, count(*) OVER (PARTITION BY g) AS b FROM w;
-- name: win_sum_double_frames
SELECT id, f, sum(f) OVER (ORDER BY id ROWS BETWEEN 2 PRECEDING AND 1 FOLLOWING) AS s, avg(f) OVER (ORDER BY id) AS a, sum(r) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS t FROM w;
