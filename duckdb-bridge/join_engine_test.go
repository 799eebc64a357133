package duckdbbridge

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/gpu/host"
)

// deviceJoinQueries must run whole on the device (here the host device)
// and equal DuckDB: every join type, several keys, keys of several types
// with nulls on both sides, keys that need a cast, residual conditions,
// IS NOT DISTINCT FROM, cross products, joins below aggregates and sorts,
// the set operations, which run as joins on whole rows, and DISTINCT
// aggregates.
var deviceJoinQueries = []string{
	"SELECT o_orderkey, l_linenumber, l_quantity FROM orders, lineitem WHERE o_orderkey = l_orderkey AND o_totalprice > l_extendedprice",
	"SELECT c_custkey, o_orderkey FROM customer LEFT JOIN orders ON c_custkey = o_custkey AND o_totalprice > 20000",
	"SELECT c_custkey, o_orderkey FROM orders RIGHT JOIN customer ON c_custkey = o_custkey AND o_totalprice < 10000",
	"SELECT c_custkey, o_orderkey FROM customer FULL JOIN orders ON c_custkey = o_custkey + 3",
	"SELECT c_custkey FROM customer WHERE EXISTS (SELECT 1 FROM orders WHERE o_custkey = c_custkey AND o_totalprice > 30000)",
	"SELECT c_custkey FROM customer WHERE NOT EXISTS (SELECT 1 FROM orders WHERE o_custkey = c_custkey AND o_totalprice > 30000)",
	"SELECT r_regionkey, n_nationkey FROM region, nation",
	"SELECT n_regionkey, count(*), sum(s_acctbal) FROM nation JOIN supplier ON s_nationkey = n_nationkey GROUP BY 1 ORDER BY 1",
	"SELECT ps_partkey, ps_suppkey, l_orderkey FROM partsupp JOIN lineitem ON ps_partkey = l_partkey AND ps_suppkey = l_suppkey",
	// keys and residuals over nullable columns of every kind
	"SELECT x.a, y.a FROM t x JOIN t y ON x.b = y.b",
	"SELECT x.a, y.a FROM t x JOIN t y ON x.d = y.d AND x.bi = y.bi",
	"SELECT x.a, y.a FROM t x LEFT JOIN t y ON x.f = y.f AND x.a < y.a",
	"SELECT x.a, y.a FROM t x FULL JOIN t y ON x.h = y.h AND x.bo = y.bo",
	"SELECT x.a, y.a FROM t x JOIN t y ON x.w = y.w",
	"SELECT x.a, y.a FROM t x JOIN t y ON x.bi = y.a",
	"SELECT x.a, y.a FROM t x JOIN t y ON x.b IS NOT DISTINCT FROM y.b AND x.a + 1 = y.a",
	"SELECT x.a FROM t x WHERE x.bi IN (SELECT y.a FROM t y WHERE y.a > 50)",
	"SELECT x.a FROM t x WHERE EXISTS (SELECT 1 FROM t y WHERE y.d = x.d AND y.a <> x.a)",
	"SELECT x.a FROM t x WHERE NOT EXISTS (SELECT 1 FROM t y WHERE y.bi = x.bi AND y.a > x.a)",
	"SELECT x.a, y.a FROM t x, t y WHERE x.a < 5 AND y.a < 4",
	"SELECT x.a, y.b FROM t x LEFT JOIN t y ON x.a = y.a + 1000",
	"SELECT x.a, count(y.a) FROM t x LEFT JOIN t y ON x.d = y.d GROUP BY x.a ORDER BY 1",
	"SELECT x.a, y.a FROM t x JOIN t y ON x.a = y.a WHERE x.a < 0",
	// IN / NOT IN as MARK joins: keys with and without nulls, an empty
	// right side, marks in the output, a correlated IN
	"SELECT p_partkey FROM part WHERE p_size NOT IN (SELECT s_suppkey FROM supplier WHERE s_acctbal > 0)",
	"SELECT x.a FROM t x WHERE x.bi NOT IN (SELECT y.bi FROM t y WHERE y.a > 150)",
	"SELECT x.a FROM t x WHERE x.bi NOT IN (SELECT y.bi FROM t y WHERE y.a > 150 AND y.bi IS NOT NULL)",
	"SELECT a, bi IN (SELECT a FROM t WHERE a > 100) FROM t",
	"SELECT a, bi IN (SELECT bi FROM t WHERE a < 50) FROM t",
	"SELECT a, bi IN (SELECT bi FROM t WHERE a < 0) FROM t",
	"SELECT x.a FROM t x WHERE x.a < 20 OR x.bi IN (SELECT y.bi FROM t y WHERE y.d = x.d)",
	"SELECT x.a, x.bi IN (SELECT y.bi FROM t y WHERE y.d = x.d AND y.a <> 7) FROM t x",
	// cross products with a one-row side (listed on the device), also an
	// empty other side and a one-row side of nulls
	"SELECT a, b FROM t WHERE bi > (SELECT avg(bi) FROM t)",
	"SELECT a, x.total FROM t, (SELECT sum(bi) AS total FROM t WHERE a > 1000) x",
	"SELECT a, m FROM (SELECT a FROM t WHERE a > 1000) y, (SELECT max(a) AS m FROM t) x",
	"SELECT m, a FROM (SELECT max(a) AS m FROM t) x, t WHERE a < m - 150",
	// set operations
	"SELECT b FROM t WHERE a < 50 UNION ALL SELECT b FROM t WHERE a > 150",
	"SELECT b, d FROM t WHERE a < 100 UNION SELECT b, d FROM t WHERE a > 20",
	"SELECT bi FROM t EXCEPT SELECT bi FROM t WHERE a > 100",
	"SELECT d, f FROM t INTERSECT SELECT d, f FROM t WHERE a > 60",
	"SELECT o_custkey FROM orders UNION SELECT c_custkey FROM customer",
	"SELECT a FROM t WHERE a < 3 UNION ALL SELECT bi FROM t WHERE a < 3",
	// DISTINCT aggregates (a grouping on the argument first)
	"SELECT l_linenumber, count(DISTINCT l_partkey), sum(DISTINCT l_quantity) FROM lineitem GROUP BY 1",
	"SELECT count(DISTINCT b), min(DISTINCT b) FROM t",
	"SELECT bo, count(DISTINCT d) FROM t GROUP BY bo",
}

func TestJoinsAndSetOpsRunOnDevice(t *testing.T) {
	checkRunOnDevice(t, deviceJoinQueries)
}

// A join without equal keys past physical.MaxCrossPairs pairs (5000 x
// 5000 rows) is refused while running, the device listing the pairs on the
// host: the query's plan is made again with that join on DuckDB and the
// grouping after it on the device, where before the whole query went to
// DuckDB. The result says why.
func TestCrossRefusedWhileRunning(t *testing.T) {
	e := NewEngine(memoryDB(t, `CREATE TABLE a AS SELECT i AS x, i % 7 AS g FROM range(5000) t(i);
CREATE TABLE b AS SELECT (i * 37) % 5003 AS y FROM range(5000) t(i)`), "cross-refused", host.New(), "")
	q := "SELECT g, count(*) AS n, sum(y) AS s FROM a JOIN b ON x < y - 4990 GROUP BY g ORDER BY g"
	for run := 0; run < 2; run++ {
		checkSubtreeOnDuckDB(t, e, q)
	}
	res, err := e.Query(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Release()
	if !strings.Contains(res.Reason, "refused while running: a join without equal keys over 5000 x 5000 rows") {
		t.Fatalf("reason %q: want the refusal while running", res.Reason)
	}
}

// sortLimited refuses sorts of more than max rows, as the CUDA device
// refuses those past gpu.MaxSortRows.
type sortLimited struct {
	*host.Device
	max int
}

func (d sortLimited) Sort(ctx context.Context, cols []gpu.Column, keys []gpu.SortKey, limit int) ([]gpu.Column, error) {
	if len(cols) > 0 && cols[0].Len() > d.max {
		return nil, fmt.Errorf("sort of %d rows (at most %d here): %w", cols[0].Len(), d.max, gpu.ErrUnsupported)
	}
	return d.Device.Sort(ctx, cols, keys, limit)
}

// A sort the device refuses while running hands the plan's sorts to
// DuckDB, the rest staying on the device: the inner ORDER BY of 5000 rows
// runs on DuckDB, the LIMIT, the grouping and its ORDER BY on the device.
func TestSortRefusedWhileRunning(t *testing.T) {
	e := NewEngine(memoryDB(t, `CREATE TABLE a AS SELECT i AS x, (i * 37) % 101 AS y FROM range(5000) t(i)`), "sort-refused", sortLimited{host.New(), 1000}, "")
	q := "SELECT y % 7 AS k, count(*) AS n, sum(x) AS s FROM (SELECT x, y FROM a ORDER BY y DESC, x LIMIT 3000) GROUP BY k ORDER BY k"
	checkSubtreeOnDuckDB(t, e, q)
	res, err := e.Query(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Release()
	if !strings.Contains(res.Reason, "refused while running") || !strings.Contains(res.Reason, "sort of 5000 rows") {
		t.Fatalf("reason %q: want the sort's refusal while running", res.Reason)
	}
}

// Window functions the device refuses while running (here their sort of
// 5000 rows) go to DuckDB with their projection, the rest of the plan
// staying on the device.
func TestWindowRefusedWhileRunning(t *testing.T) {
	e := NewEngine(memoryDB(t, `CREATE TABLE a AS SELECT i AS x, (i * 37) % 101 AS y FROM range(5000) t(i)`), "window-refused", sortLimited{host.New(), 1000}, "")
	q := "SELECT r % 5 AS k, count(*) AS n FROM (SELECT x, rank() OVER (ORDER BY y, x) AS r FROM a WHERE x > 10) GROUP BY k ORDER BY k"
	checkSubtreeOnDuckDB(t, e, q)
}
