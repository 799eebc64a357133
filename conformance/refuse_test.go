package conformance

import (
	"context"
	"fmt"
	"strings"
	"testing"

	duckdbbridge "github.com/rigel-db/rigel/duckdb-bridge"
	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/gpu/cuda"
	"github.com/rigel-db/rigel/gpu/host"
	"github.com/rigel-db/rigel/internal/arrowfmt"
)

// cudaPlans is the host device answering the translator as the CUDA device
// does (gpu.Refuser: its code generator's and aggregate planner's answers,
// which need no GPU), so that the plans the GPU gets are made and run
// here: what the CUDA device refuses goes to DuckDB as a subtree before
// anything runs, and the rest must still give DuckDB's answers.
type cudaPlans struct {
	*host.Device
	gpu.Refuser
}

// Run refuses, as the CUDA device would while running, a pipeline with an
// operation or aggregate the CUDA device refuses: the pipelines operators
// make while running (a window's scans and gathers) are checked so too.
func (c cudaPlans) Run(ctx context.Context, p *gpu.Pipeline, inputs []gpu.Column) ([]gpu.Column, error) {
	var check func(e *gpu.Expr) error
	check = func(e *gpu.Expr) error {
		if e == nil {
			return nil
		}
		for _, a := range e.Args {
			if err := check(a); err != nil {
				return err
			}
		}
		return c.RefuseExpr(e)
	}
	for _, e := range append([]*gpu.Expr{p.Filter}, p.Project...) {
		if err := check(e); err != nil {
			return nil, err
		}
	}
	for _, a := range p.Aggs {
		var arg gpu.Type
		if a.Kind != gpu.AggCountStar {
			arg = p.Project[a.Arg].Type
		}
		if err := c.RefuseAgg(a, arg); err != nil {
			return nil, err
		}
	}
	return c.Device.Run(ctx, p, inputs)
}

func cudaPlanDevice(t *testing.T) gpu.Device {
	return cudaPlans{Device: hostDevice(t, 2<<30), Refuser: &cuda.Device{}}
}

// TPC-H under the CUDA device's refusals: all 22 whole on the device, as on
// the GPU (the refusals must not send any of them to DuckDB).
func TestTPCHCudaPlans(t *testing.T) {
	checkTPCH(t, openEngine(t, cudaPlanDevice(t)), duckdbbridge.OnHost)
}

// TPC-DS under the CUDA device's refusals: every answer DuckDB's, all 99
// whole on the device (the stddev_samp of q17 and q39 from exact moments,
// the row-wise concat and coalesce of q05, q80 and q84 evaluated on the
// host over the device's columns, q19's and q24's comparisons of two
// tables' strings through places), and none refused while running.
func TestTPCDSCudaPlans(t *testing.T) {
	checkTPCDS(t, cudaPlanDevice(t), minWholeTPCDSCuda, true, nil)
}

// minWholeTPCDSCuda is the fewest TPC-DS queries that must run whole on
// the device under the CUDA device's refusals.
const minWholeTPCDSCuda = 99

// What the CUDA device refuses (make_date: its code generator has no
// civil-date constructor) becomes a DuckDB subtree when the plan is made:
// the rest of the query runs on the device, nothing is refused while
// running, and the answer is DuckDB's.
func TestRefusedSubtreeCudaPlans(t *testing.T) {
	eng := openEngine(t, cudaPlanDevice(t))
	q := "SELECT o_orderkey, make_date(1995, 1 + o_orderkey % 12, 1) AS d FROM orders WHERE o_orderkey < 200 ORDER BY o_orderkey"
	where, reason := answerLikeDuckDB(t, eng, q)
	if where != duckdbbridge.OnHost || !strings.Contains(reason, "subtree") || !strings.Contains(reason, "make_date") {
		t.Fatalf("ran on %s (%s), want the device with make_date's subtree on DuckDB", where, reason)
	}
}

// greatest and least under the CUDA device's refusals: CASEs of SQL-order
// comparisons, whole on the device, DuckDB's answers (nulls passed over,
// decimals and doubles mixed). TestGreatestLeastCuda runs them on the GPU.
func TestGreatestLeastCudaPlans(t *testing.T) { checkGreatestLeast(t, cudaPlanDevice(t)) }

func checkGreatestLeast(t *testing.T, dev gpu.Device) {
	checkWhole(t, dev, []string{
		"SELECT o_orderkey, greatest(o_totalprice, CASE WHEN o_orderkey % 3 = 0 THEN NULL ELSE o_custkey * 10 END) AS g, least(o_orderdate, DATE '1995-06-01', CASE WHEN o_orderkey % 5 = 0 THEN NULL ELSE o_orderdate + 30 END) AS l, greatest(o_totalprice::DOUBLE / 7, o_shippriority, o_custkey % 97) AS h FROM orders WHERE o_custkey < 300 ORDER BY o_orderkey",
	})
}

// Variances and deviations under the CUDA device's refusals: from exact
// moments (translate's statFromMoments), whole on the device, each answer
// DuckDB's within a float's tolerance (DuckDB's running mean rounds in its
// own order): integers of every width, decimals of 64-bit storage and
// negative values, nulls, groups of one value, no rows at all.
// TestStatsCuda runs them on the GPU.
func TestStatsCudaPlans(t *testing.T) { checkStats(t, cudaPlanDevice(t)) }

func checkStats(t *testing.T, dev gpu.Device) {
	checkWhole(t, dev, []string{
		"SELECT p_size, stddev_samp(ps_availqty) AS a, var_pop(ps_availqty) AS b, stddev_pop(p_size) AS c, var_samp(ps_supplycost) AS d FROM partsupp JOIN part ON ps_partkey = p_partkey GROUP BY p_size ORDER BY p_size",
		"SELECT c_nationkey, stddev_samp(c_acctbal) AS a, variance(CASE WHEN c_custkey % 3 = 0 THEN NULL ELSE c_custkey END) AS b, stddev_samp(c_custkey::BIGINT * 1000000000) AS c, var_pop(c_nationkey::TINYINT) AS d FROM customer WHERE c_custkey < 200 GROUP BY c_nationkey ORDER BY c_nationkey",
		"SELECT o_custkey, stddev_samp(o_shippriority) AS a, var_pop(o_totalprice) AS b, stddev_samp(o_totalprice) AS c FROM orders WHERE o_orderkey < 2000 GROUP BY o_custkey ORDER BY o_custkey",
		"SELECT stddev_samp(l_linenumber) AS a, var_pop(l_quantity) AS b FROM lineitem WHERE l_orderkey < 0",
		"SELECT stddev_pop(l_quantity) AS a, var_samp(l_extendedprice) AS b, stddev_samp(l_linenumber) AS c, stddev_samp(l_suppkey::SMALLINT) AS d FROM lineitem",
	})
}

// Window functions whose pipelines the Window operator makes while running
// (distributions, other rows' values through gathers, RANGE frames' sorted
// probes) run whole under the CUDA device's refusals, each answer DuckDB's.
// TestWindowCuda runs them on the GPU.
func TestWindowCudaPlans(t *testing.T) { checkWindows(t, cudaPlanDevice(t)) }

func checkWindows(t *testing.T, dev gpu.Device) {
	checkWhole(t, dev, []string{
		"SELECT o_orderkey, percent_rank() OVER (PARTITION BY o_custkey ORDER BY o_orderpriority) AS pr, cume_dist() OVER (PARTITION BY o_custkey ORDER BY o_orderpriority) AS cd, ntile(3) OVER (PARTITION BY o_custkey ORDER BY o_orderkey) AS nt FROM orders WHERE o_custkey < 300 ORDER BY o_orderkey",
		"SELECT o_orderkey, first_value(o_orderstatus) OVER (PARTITION BY o_custkey ORDER BY o_orderkey) AS fv, last_value(o_totalprice) OVER (PARTITION BY o_custkey ORDER BY o_orderkey ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS lv, lag(o_totalprice, 1, 0) OVER (PARTITION BY o_custkey ORDER BY o_orderkey) AS lg, lead(o_orderdate, 2) OVER (PARTITION BY o_custkey ORDER BY o_orderkey) AS ld FROM orders WHERE o_custkey < 300 ORDER BY o_orderkey",
		"SELECT o_orderkey, sum(o_totalprice) OVER (PARTITION BY o_custkey ORDER BY o_orderkey ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS s, avg(o_totalprice) OVER (PARTITION BY o_custkey) AS a, rank() OVER (PARTITION BY o_orderstatus ORDER BY o_totalprice DESC) AS r FROM orders WHERE o_custkey < 300 ORDER BY o_orderkey",
		"SELECT o_orderkey, sum(o_totalprice) OVER (PARTITION BY o_custkey ORDER BY o_orderkey ROWS BETWEEN 2 PRECEDING AND 1 FOLLOWING) AS s, count(*) OVER (PARTITION BY o_custkey ORDER BY o_orderkey ROWS BETWEEN 1 FOLLOWING AND 3 FOLLOWING) AS c, last_value(o_clerk) OVER (PARTITION BY o_custkey ORDER BY o_orderkey ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) AS l FROM orders WHERE o_custkey < 300 ORDER BY o_orderkey",
		// min and max over sliding frames: a sparse table, scans for an
		// unbounded end, a RANGE frame.
		"SELECT o_orderkey, min(o_totalprice) OVER (PARTITION BY o_custkey ORDER BY o_orderkey ROWS BETWEEN 3 PRECEDING AND 2 FOLLOWING) AS a, max(o_shippriority + o_custkey % 13) OVER (PARTITION BY o_orderstatus ORDER BY o_orderkey ROWS BETWEEN 30 PRECEDING AND 1 PRECEDING) AS b, max(o_totalprice) OVER (PARTITION BY o_custkey ORDER BY o_orderkey ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING) AS c, min(o_orderkey) OVER (PARTITION BY o_orderstatus ORDER BY o_custkey RANGE BETWEEN 2 PRECEDING AND 2 FOLLOWING) AS e FROM orders WHERE o_custkey < 300 ORDER BY o_orderkey",
		// RANGE frames with offsets: ties, nulls first, empty frames, a
		// float key, the frame's value at its first and last rows.
		// min and max of doubles over sliding frames and running ones, in
		// SQL's order: NaNs (0/0) above every number, nulls before NaNs
		// (a running min's identity is NaN, not +Inf).
		"SELECT o_orderkey, min(x) OVER (PARTITION BY o_custkey ORDER BY o_orderkey ROWS BETWEEN 2 PRECEDING AND 1 FOLLOWING) AS m, max(x) OVER (PARTITION BY o_custkey ORDER BY o_orderkey ROWS BETWEEN 1 PRECEDING AND 3 FOLLOWING) AS mx, min(x) OVER (PARTITION BY o_custkey ORDER BY o_orderkey ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING) AS m2, max(x) OVER (PARTITION BY o_orderstatus ORDER BY o_custkey RANGE BETWEEN 2 PRECEDING AND 1 FOLLOWING) AS m3, min(x) OVER (PARTITION BY o_custkey ORDER BY o_orderkey) AS m4 FROM (SELECT o_orderkey, o_custkey, o_orderstatus, CASE WHEN o_orderkey % 3 = 0 THEN NULL WHEN o_orderkey % 7 = 1 THEN (o_totalprice::DOUBLE - o_totalprice::DOUBLE) / (o_totalprice::DOUBLE - o_totalprice::DOUBLE) ELSE o_totalprice::DOUBLE * (o_orderkey % 5 - 2) END AS x FROM orders WHERE o_custkey < 300) ORDER BY o_orderkey",
		// RANGE frames under a descending key: BIGINT, DECIMAL and
		// INTEGER keys negated, ascending (duckdb-bridge's
		// descendingRangeKey), nulls first.
		"SELECT o_orderkey, sum(o_totalprice) OVER (PARTITION BY o_orderstatus ORDER BY o_custkey DESC RANGE BETWEEN 3 PRECEDING AND 2 FOLLOWING) AS s, count(*) OVER (PARTITION BY o_orderpriority ORDER BY CASE WHEN o_orderkey % 7 = 0 THEN NULL ELSE o_totalprice END DESC NULLS FIRST RANGE BETWEEN 1000 PRECEDING AND CURRENT ROW) AS c, min(o_orderkey) OVER (PARTITION BY o_orderstatus ORDER BY (o_shippriority + o_custkey % 7)::INTEGER DESC RANGE BETWEEN 1 FOLLOWING AND 2 FOLLOWING) AS m FROM orders WHERE o_custkey < 300 ORDER BY o_orderkey",
		// QUALIFY and its subquery form: the first rows of each partition
		// (DuckDB's top_n_window_elimination is off while plans are
		// made, duckdb-bridge/producer.go), ranks with ties.
		"SELECT o_custkey, o_orderkey, o_totalprice FROM orders WHERE o_custkey < 300 QUALIFY row_number() OVER (PARTITION BY o_custkey ORDER BY o_orderdate DESC, o_orderkey) = 1 ORDER BY o_custkey",
		"SELECT * FROM (SELECT o_custkey, o_orderkey, row_number() OVER (PARTITION BY o_custkey ORDER BY o_totalprice, o_orderkey) AS rn FROM orders WHERE o_custkey < 300) WHERE rn <= 2 ORDER BY o_custkey, rn",
		"SELECT o_orderstatus, o_orderpriority, o_orderkey FROM orders WHERE o_custkey < 300 QUALIFY rank() OVER (PARTITION BY o_orderstatus ORDER BY o_orderpriority) <= 3 AND dense_rank() OVER (PARTITION BY o_orderpriority ORDER BY o_orderstatus DESC) = 1 ORDER BY o_orderkey",
		// RANGE frames over a DATE key: offsets in days (DATE - INTEGER),
		// and intervals of days and hours, for which DuckDB sorts on the
		// date's midnight as a TIMESTAMP; nulls first, ties, empty frames.
		"SELECT o_orderkey, count(*) OVER (PARTITION BY o_orderstatus ORDER BY o_orderdate RANGE BETWEEN 30 PRECEDING AND 2 FOLLOWING) AS c, sum(o_totalprice) OVER (ORDER BY CASE WHEN o_orderkey % 7 = 0 THEN NULL ELSE o_orderdate END NULLS FIRST RANGE BETWEEN 3 FOLLOWING AND 10 FOLLOWING) AS s, max(o_custkey) OVER (PARTITION BY o_orderpriority ORDER BY o_orderdate RANGE BETWEEN INTERVAL 7 DAYS PRECEDING AND INTERVAL '36 hours' FOLLOWING) AS m, avg(o_totalprice) OVER (ORDER BY o_orderdate RANGE BETWEEN INTERVAL 90 DAYS PRECEDING AND CURRENT ROW) AS a FROM orders WHERE o_custkey < 300 ORDER BY o_orderkey",
		"SELECT o_orderkey, sum(o_totalprice) OVER (PARTITION BY o_orderstatus ORDER BY o_custkey RANGE BETWEEN 3 PRECEDING AND 2 FOLLOWING) AS s, count(*) OVER (PARTITION BY o_orderpriority ORDER BY CASE WHEN o_orderkey % 5 = 0 THEN NULL ELSE o_custkey % 11 END NULLS FIRST RANGE BETWEEN CURRENT ROW AND 4 FOLLOWING) AS c, count(o_custkey) OVER (PARTITION BY o_orderstatus ORDER BY o_custkey RANGE BETWEEN 2 FOLLOWING AND 3 FOLLOWING) AS e, first_value(o_totalprice) OVER (PARTITION BY o_orderstatus ORDER BY o_totalprice::DOUBLE RANGE BETWEEN 1000 PRECEDING AND 500 FOLLOWING) AS fv, last_value(o_totalprice) OVER (PARTITION BY o_orderstatus ORDER BY o_totalprice::DOUBLE RANGE BETWEEN UNBOUNDED PRECEDING AND 500 FOLLOWING) AS lv FROM orders WHERE o_custkey < 300 ORDER BY o_orderkey",
	})
}

// Sums and averages of doubles over ordered frames, with no PARTITION BY:
// DuckDB adds them in its segment tree's order over the sorted rows, and so
// does rigel (gpu/segmenttree.go), so the answers are DuckDB's bytes:
// running frames (ROWS, and RANGE to the last peer), sliding ROWS frames
// (both ends bounded, one end unbounded, empty frames at the ends), a
// descending order, a RANGE frame with offsets, nulls (frames of none
// give null), a NaN and an infinity that reach some frames only.
// TestWindowSumsCuda runs them on the GPU.
func TestWindowSumsHost(t *testing.T) { checkWindowSums(t, host.New()) }

func TestWindowSumsCudaPlans(t *testing.T) { checkWindowSums(t, cudaPlanDevice(t)) }

func checkWindowSums(t *testing.T, dev gpu.Device) {
	eng := openEngine(t, dev)
	// 0/0 is NaN and p/0 infinity, as DuckDB divides doubles.
	p := "l_extendedprice::DOUBLE"
	x := fmt.Sprintf(`CASE WHEN l_orderkey %% 11 = 0 THEN NULL WHEN l_orderkey = 4807 AND l_linenumber = 1 THEN (%[1]s - %[1]s) / (%[1]s - %[1]s) WHEN l_orderkey = 39904 AND l_linenumber = 2 THEN %[1]s / (%[1]s - %[1]s) ELSE %[1]s / (l_linenumber + 0.3) - l_tax::DOUBLE * 1e4 END`, p)
	from := fmt.Sprintf("(SELECT l_orderkey * 8 + l_linenumber AS k, l_orderkey, %s AS x FROM lineitem)", x)
	for _, q := range []string{
		"SELECT k, sum(x) OVER (ORDER BY k ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS s, avg(x) OVER (ORDER BY k) AS a FROM " + from + " ORDER BY k",
		"SELECT k, sum(x) OVER (ORDER BY k) AS s, avg(x) OVER (ORDER BY k DESC ROWS BETWEEN 40 PRECEDING AND 3 FOLLOWING) AS a FROM " + from + " ORDER BY k",
		"SELECT k, sum(x) OVER (ORDER BY k ROWS BETWEEN 2 FOLLOWING AND 700 FOLLOWING) AS s, avg(x) OVER (ORDER BY k ROWS BETWEEN 300 PRECEDING AND 1 PRECEDING) AS a, sum(x) OVER (ORDER BY k ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS t FROM " + from + " ORDER BY k",
		"SELECT k, sum(x) OVER (ORDER BY k RANGE BETWEEN 5000 PRECEDING AND 100 FOLLOWING) AS s, avg(x) OVER (ORDER BY k RANGE BETWEEN 20 PRECEDING AND 20 FOLLOWING) AS a FROM " + from + " ORDER BY k",
	} {
		t.Run(q, func(t *testing.T) {
			if where, reason := answerComparedWith(t, eng, q, arrowfmt.CompareExact); where == duckdbbridge.OnFallback || reason != "" {
				t.Fatalf("ran on %s (%s), want the device whole", where, reason)
			}
		})
	}
}

// checkWhole runs each query on dev: whole on the device, DuckDB's answer.
func checkWhole(t *testing.T, dev gpu.Device, queries []string) {
	eng := openEngine(t, dev)
	for _, q := range queries {
		t.Run(q, func(t *testing.T) {
			if where, reason := answerLikeDuckDB(t, eng, q); where == duckdbbridge.OnFallback || reason != "" {
				t.Fatalf("ran on %s (%s), want the device whole", where, reason)
			}
		})
	}
}
