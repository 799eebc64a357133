package duckdbbridge

import (
	"testing"

	"github.com/rigel-db/rigel/gpu/host"
)

// exprQueries are single-table queries over the TPC-H expressions that run
// through string tables, IN lists, date parts, timestamp constants and
// decimal division: each must run on the device and equal DuckDB's answer.
var exprQueries = []string{
	"select l_shipmode, count(*) from lineitem where l_shipmode in ('MAIL','SHIP') and l_comment not like '%1%' group by 1",
	"select count(*) from lineitem where l_shipmode = 'MAIL'",
	"select count(*) from lineitem where l_shipmode <> 'MAIL' and l_shipmode >= 'FOB' and l_shipmode < 'SHIP'",
	"select count(*) from lineitem where 'MAIL' < l_shipmode",
	"select count(*) from lineitem where l_shipmode not in ('MAIL','SHIP','AIR')",
	"select count(*), sum(p_size) from part where p_size in (49, 14, 23, 45, 19, 3, 36, 9)",
	"select count(*) from part where p_size not in (1, 2, 3)",
	"select count(*) from part where p_type like '%BRASS'",
	"select count(*) from part where p_name like '%green%'",
	"select count(*) from part where p_type like 'PROMO%'",
	"select count(*) from part where p_type like 'MEDIUM POLISHED%'",
	"select count(*) from part where p_comment not like '%comment%1%'",
	"select count(*) from part where p_name like 'part_green%' and p_name like '%_1'",
	"select count(*) from part where p_name like 'part gr%'",
	"select p_type, count(*) from part where p_type not like 'MEDIUM POLISHED%' group by 1",
	"select s, count(*) from t where s like 'x%' or s in ('x3', 'x5') group by 1",
	"select count(*) from t where s = 'x1' or s is null",
	"select extract(year from o_orderdate) y, count(*) from orders group by 1",
	"select year(d), month(d), day(d) from t",
	"select count(*) from orders where o_orderdate >= date '1994-01-01' and o_orderdate < date '1994-01-01' + interval 1 year",
	"select count(*) from lineitem where l_shipdate <= date '1998-12-01' - interval 90 day",
	"select count(*) from t where d > date '1995-03-01' + interval 1 month",
	// date + integer days (rigel's add:date_i32), as TPC-DS q72's join writes it
	"select count(*) from lineitem join orders on l_orderkey = o_orderkey where l_receiptdate > o_orderdate + 60",
	"select d + 3, d + (-400) from t",
	// DOUBLE to INTEGER rounds half to even (TPC-DS q54's CAST(round(revenue / 50) AS int))
	"select cast(o_totalprice::double / 1000 as integer) k, cast(o_totalprice::double / 500 as smallint) h, count(*) from orders group by 1, 2",
	"select 100.00 * sum(case when l_shipmode = 'MAIL' then l_extendedprice * (1 - l_discount) else 0 end) / sum(l_extendedprice * (1 - l_discount)) from lineitem",
	"select sum(case when l_shipmode like 'R%' then l_extendedprice else 0 end) / sum(l_extendedprice) from lineitem where l_shipdate >= date '1993-01-01'",
	"select substring(c_phone,1,2) cc, count(*) from customer where substring(c_phone,1,2) in ('13','31','20','21') group by cc",
	"select substring(s, 2), count(*) from t group by 1",
}

func TestExpressionsThroughEngine(t *testing.T) {
	checkRunOnDevice(t, exprQueries)
}

// greatest and least (Substrait's greatest_skip_null and least_skip_null:
// DuckDB's pass over nulls) of integers, doubles with NaN (above every
// number), decimals and dates, 2 to 4 arguments, run on the device as
// CASEs; five arguments leave that projection to DuckDB's greatest.
func TestGreatestLeast(t *testing.T) {
	const ddl = `CREATE TABLE gl AS SELECT i,
  CASE WHEN i % 5 = 0 THEN NULL ELSE (i * 37 % 101) - 50 END AS a,
  CASE WHEN i % 7 = 0 THEN NULL WHEN i % 11 = 0 THEN 'nan'::DOUBLE ELSE (i * 13 % 97) / 3.0 - 16 END AS f,
  (i % 13)::DECIMAL(9,2) / 4 AS d, DATE '2020-01-01' + (i % 50)::INTEGER AS dt,
  CASE WHEN i % 3 = 0 THEN NULL ELSE DATE '2020-01-20' END AS dn
FROM range(200) t(i)`
	checkDDLWholeOnHost(t, "greatest-least", ddl, []string{
		"SELECT i, greatest(a, f) AS g, least(a, f, d) AS l, greatest(dt, dn) AS gd, least(d, a) AS ld, least(a, -3, f, d) AS l4 FROM gl ORDER BY i",
		"SELECT greatest(a, 10) + least(f, 0.5) AS k, count(*) AS n FROM gl GROUP BY 1 ORDER BY 1 NULLS FIRST",
	})
	checkSubtreeOnDuckDB(t, NewEngine(memoryDB(t, ddl), "greatest-five", host.New(), ""), "SELECT i, greatest(a, f, d, i, 3) AS g FROM gl ORDER BY i")
}
