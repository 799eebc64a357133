"""TPC-H queries written with ibis's dataframe API.

ibis_tpch.py takes each query's SQL through ibis.parse_sql first; where
that parser fails (it does not know NOT, LIKE, CASE, substring or
correlated subqueries), the query is written here with ibis's own API, from
the same SQL text (conformance/tpch/queries, same constants), so that the
plan count reflects what ibis-substrait can compile rather than what
sqlglot's bridge can parse.

Where the SQL holds a subquery, the API form states it as the join ibis
users write for it: EXISTS and IN as semi joins, NOT EXISTS and NOT IN as
anti joins (every TPC-H column is NOT NULL, so NOT IN and the anti join
agree), a correlated aggregate as a grouped aggregate joined on the
correlation keys (a key with no rows has no group, as the subquery's NULL
compares false), and an uncorrelated scalar subquery as a one-row table
joined to every row. Each plan is checked against DuckDB's answer to the
SQL itself.

Averages that the SQL compares (Q17, Q22) are taken over float64, as DuckDB
averages a DECIMAL into a DOUBLE: a decimal average rounded to the column's
scale would move the comparison's boundary.

Each function takes a dict of ibis tables by name and returns the query.
"""
import ibis


def _cross(left, right):
    """FROM left, right: a join on TRUE, the WHERE clause after it.
    ibis-substrait 4.0.1 drops a select that directly follows a join (the
    join's column list in ibis 9): the plan's root then names fewer columns
    than it has. A filter between the two keeps the select."""
    return left.join(right, ibis.literal(True))


def _anti_join(left, right, pred, key):
    """NOT EXISTS / NOT IN as a left join keeping the rows that found no
    match (right's NOT NULL column key is null only there): ibis-substrait
    4.0.1 compiles no anti join (KeyError 'anti')."""
    j = left.left_join(right, pred(left, right))
    return j.filter(j[key].isnull()).select(*left.columns)


def _d(s):
    return ibis.date(s)


def _revenue(t):
    return t.l_extendedprice * (1 - t.l_discount)


def q02(t):
    part, supplier, partsupp, nation, region = (
        t["part"], t["supplier"], t["partsupp"], t["nation"], t["region"])
    europe = (
        partsupp.join(supplier, supplier.s_suppkey == partsupp.ps_suppkey)
        .join(nation, supplier.s_nationkey == nation.n_nationkey)
        .join(region, nation.n_regionkey == region.r_regionkey)
        .filter(region.r_name == "EUROPE")
    )
    # SELECT min(ps_supplycost) ... WHERE p_partkey = ps_partkey, per part.
    mincost = europe.group_by(mc_partkey=europe.ps_partkey).aggregate(
        min_cost=europe.ps_supplycost.min())
    q = (
        part.join(europe, part.p_partkey == europe.ps_partkey)
        .join(mincost, [mincost.mc_partkey == part.p_partkey,
                        mincost.min_cost == europe.ps_supplycost])
        .filter(part.p_size == 15, part.p_type.like("%BRASS"))
    )
    q = q.select("s_acctbal", "s_name", "n_name", "p_partkey", "p_mfgr",
                 "s_address", "s_phone", "s_comment")
    return q.order_by([ibis.desc("s_acctbal"), "n_name", "s_name", "p_partkey"]).limit(100)


def q04(t):
    orders, lineitem = t["orders"], t["lineitem"]
    late = lineitem.filter(lineitem.l_commitdate < lineitem.l_receiptdate)
    q = orders.filter(orders.o_orderdate >= _d("1993-07-01"),
                      orders.o_orderdate < _d("1993-10-01"))
    q = q.semi_join(late, q.o_orderkey == late.l_orderkey)
    q = q.group_by("o_orderpriority").aggregate(order_count=lambda x: x.count())
    return q.order_by("o_orderpriority")


def _nation_as(nation, prefix):
    return nation.select(**{prefix + "_nationkey": nation.n_nationkey,
                            prefix + "_regionkey": nation.n_regionkey,
                            prefix + "_name": nation.n_name})


def q07(t):
    supplier, lineitem, orders, customer, nation = (
        t["supplier"], t["lineitem"], t["orders"], t["customer"], t["nation"])
    n1, n2 = _nation_as(nation, "n1"), _nation_as(nation, "n2")
    j = (
        supplier.join(lineitem, supplier.s_suppkey == lineitem.l_suppkey)
        .join(orders, orders.o_orderkey == lineitem.l_orderkey)
        .join(customer, customer.c_custkey == orders.o_custkey)
        .join(n1, supplier.s_nationkey == n1.n1_nationkey)
        .join(n2, customer.c_nationkey == n2.n2_nationkey)
    )
    j = j.filter(
        ((j.n1_name == "FRANCE") & (j.n2_name == "GERMANY"))
        | ((j.n1_name == "GERMANY") & (j.n2_name == "FRANCE")),
        j.l_shipdate.between(_d("1995-01-01"), _d("1996-12-31")),
    )
    shipping = j.select(supp_nation=j.n1_name, cust_nation=j.n2_name,
                        l_year=j.l_shipdate.year(), volume=_revenue(j))
    q = shipping.group_by(["supp_nation", "cust_nation", "l_year"]).aggregate(
        revenue=shipping.volume.sum())
    return q.order_by(["supp_nation", "cust_nation", "l_year"])


def q08(t):
    part, supplier, lineitem, orders, customer, nation, region = (
        t["part"], t["supplier"], t["lineitem"], t["orders"], t["customer"],
        t["nation"], t["region"])
    n1, n2 = _nation_as(nation, "n1"), _nation_as(nation, "n2")
    j = (
        part.join(lineitem, part.p_partkey == lineitem.l_partkey)
        .join(supplier, supplier.s_suppkey == lineitem.l_suppkey)
        .join(orders, lineitem.l_orderkey == orders.o_orderkey)
        .join(customer, orders.o_custkey == customer.c_custkey)
        .join(n1, customer.c_nationkey == n1.n1_nationkey)
        .join(region, n1.n1_regionkey == region.r_regionkey)
        .join(n2, supplier.s_nationkey == n2.n2_nationkey)
    )
    j = j.filter(
        j.r_name == "AMERICA",
        j.o_orderdate.between(_d("1995-01-01"), _d("1996-12-31")),
        j.p_type == "ECONOMY ANODIZED STEEL",
    )
    all_nations = j.select(o_year=j.o_orderdate.year(), volume=_revenue(j), nation=j.n2_name)
    brazil = ibis.ifelse(all_nations.nation == "BRAZIL", all_nations.volume, 0)
    q = all_nations.group_by("o_year").aggregate(
        brazil=brazil.sum(), total=all_nations.volume.sum())
    q = q.select("o_year", mkt_share=q.brazil / q.total)
    return q.order_by("o_year")


def q09(t):
    part, supplier, lineitem, partsupp, orders, nation = (
        t["part"], t["supplier"], t["lineitem"], t["partsupp"], t["orders"], t["nation"])
    j = (
        lineitem.join(supplier, supplier.s_suppkey == lineitem.l_suppkey)
        .join(partsupp, [partsupp.ps_suppkey == lineitem.l_suppkey,
                         partsupp.ps_partkey == lineitem.l_partkey])
        .join(part, part.p_partkey == lineitem.l_partkey)
        .join(orders, orders.o_orderkey == lineitem.l_orderkey)
        .join(nation, supplier.s_nationkey == nation.n_nationkey)
    )
    j = j.filter(j.p_name.like("%green%"))
    profit = j.select(nation=j.n_name, o_year=j.o_orderdate.year(),
                      amount=_revenue(j) - j.ps_supplycost * j.l_quantity)
    q = profit.group_by(["nation", "o_year"]).aggregate(sum_profit=profit.amount.sum())
    return q.order_by(["nation", ibis.desc("o_year")])


def _german_stock(t):
    partsupp, supplier, nation = t["partsupp"], t["supplier"], t["nation"]
    j = (
        partsupp.join(supplier, partsupp.ps_suppkey == supplier.s_suppkey)
        .join(nation, supplier.s_nationkey == nation.n_nationkey)
        .filter(nation.n_name == "GERMANY")
    )
    return j.select("ps_partkey", stock=j.ps_supplycost * j.ps_availqty)


def q11(t):
    stock = _german_stock(t)
    by_part = stock.group_by("ps_partkey").aggregate(value=stock.stock.sum())
    total = _german_stock(t)
    total = total.aggregate(total=total.stock.sum())
    # value > total * 0.0001000000, as value * 10000 > total: the same
    # comparison, exact in decimals (ibis 9.5 multiplies only decimals of
    # one type: decimal(38,2) times decimal(11,10) has no precedence).
    q = _cross(by_part, total)
    q = q.filter(q.value * 10000 > q.total).select("ps_partkey", "value")
    return q.order_by(ibis.desc("value"))


def q12(t):
    orders, lineitem = t["orders"], t["lineitem"]
    j = orders.join(lineitem, orders.o_orderkey == lineitem.l_orderkey)
    j = j.filter(
        j.l_shipmode.isin(["MAIL", "SHIP"]),
        j.l_commitdate < j.l_receiptdate,
        j.l_shipdate < j.l_commitdate,
        j.l_receiptdate >= _d("1994-01-01"),
        j.l_receiptdate < _d("1995-01-01"),
    )
    high = (j.o_orderpriority == "1-URGENT") | (j.o_orderpriority == "2-HIGH")
    low = (j.o_orderpriority != "1-URGENT") & (j.o_orderpriority != "2-HIGH")
    q = j.group_by("l_shipmode").aggregate(
        high_line_count=ibis.ifelse(high, 1, 0).sum(),
        low_line_count=ibis.ifelse(low, 1, 0).sum(),
    )
    return q.order_by("l_shipmode")


def q13(t):
    customer, orders = t["customer"], t["orders"]
    j = customer.left_join(
        orders,
        (customer.c_custkey == orders.o_custkey)
        & ~orders.o_comment.like("%special%requests%"),
    )
    c_orders = j.group_by("c_custkey").aggregate(c_count=j.o_orderkey.count())
    q = c_orders.group_by("c_count").aggregate(custdist=lambda x: x.count())
    return q.order_by([ibis.desc("custdist"), ibis.desc("c_count")])


def q14(t):
    lineitem, part = t["lineitem"], t["part"]
    j = lineitem.join(part, lineitem.l_partkey == part.p_partkey)
    j = j.filter(j.l_shipdate >= _d("1995-09-01"), j.l_shipdate < _d("1995-10-01"))
    rev = _revenue(j)
    promo = ibis.ifelse(j.p_type.like("PROMO%"), rev, 0)
    q = j.aggregate(promo=promo.sum(), total=rev.sum())
    return q.select(promo_revenue=(q.promo * 100.0) / q.total)


def _revenue0(t):
    lineitem = t["lineitem"]
    li = lineitem.filter(lineitem.l_shipdate >= _d("1996-01-01"),
                         lineitem.l_shipdate < _d("1996-04-01"))
    return li.group_by(supplier_no=li.l_suppkey).aggregate(total_revenue=_revenue(li).sum())


def q15(t):
    supplier = t["supplier"]
    revenue0 = _revenue0(t)
    revenue1 = _revenue0(t)
    top = revenue1.aggregate(max_revenue=revenue1.total_revenue.max())
    q = _cross(supplier.join(revenue0, supplier.s_suppkey == revenue0.supplier_no), top)
    q = q.filter(q.total_revenue == q.max_revenue).select("s_suppkey", "s_name", "s_address", "s_phone", "total_revenue")
    return q.order_by("s_suppkey")


def q16(t):
    partsupp, part, supplier = t["partsupp"], t["part"], t["supplier"]
    complaints = supplier.filter(supplier.s_comment.like("%Customer%Complaints%"))
    j = partsupp.join(part, part.p_partkey == partsupp.ps_partkey)
    j = j.filter(
        j.p_brand != "Brand#45",
        ~j.p_type.like("MEDIUM POLISHED%"),
        j.p_size.isin([49, 14, 23, 45, 19, 3, 36, 9]),
    )
    j = _anti_join(j, complaints, lambda j, c: j.ps_suppkey == c.s_suppkey, "s_suppkey")
    q = j.group_by(["p_brand", "p_type", "p_size"]).aggregate(
        supplier_cnt=j.ps_suppkey.nunique())
    return q.order_by([ibis.desc("supplier_cnt"), "p_brand", "p_type", "p_size"])


def q17(t):
    lineitem, part = t["lineitem"], t["part"]
    avg_qty = lineitem.group_by(a_partkey=lineitem.l_partkey).aggregate(
        avg_quantity=lineitem.l_quantity.cast("float64").mean())
    j = (
        lineitem.join(part, part.p_partkey == lineitem.l_partkey)
        .join(avg_qty, avg_qty.a_partkey == part.p_partkey)
    )
    j = j.filter(j.p_brand == "Brand#23", j.p_container == "MED BOX",
                 j.l_quantity < 0.2 * j.avg_quantity)
    q = j.aggregate(total=j.l_extendedprice.sum())
    return q.select(avg_yearly=q.total / 7.0)


def q18(t):
    customer, orders, lineitem = t["customer"], t["orders"], t["lineitem"]
    big = lineitem.group_by(b_orderkey=lineitem.l_orderkey).aggregate(
        b_quantity=lineitem.l_quantity.sum())
    big = big.filter(big.b_quantity > 300)
    j = (
        customer.join(orders, customer.c_custkey == orders.o_custkey)
        .join(lineitem, orders.o_orderkey == lineitem.l_orderkey)
    )
    j = j.semi_join(big, j.o_orderkey == big.b_orderkey)
    q = j.group_by(["c_name", "c_custkey", "o_orderkey", "o_orderdate", "o_totalprice"]).aggregate(
        sum_quantity=j.l_quantity.sum())
    return q.order_by([ibis.desc("o_totalprice"), "o_orderdate"]).limit(100)


def q20(t):
    supplier, nation, partsupp, part, lineitem = (
        t["supplier"], t["nation"], t["partsupp"], t["part"], t["lineitem"])
    li = lineitem.filter(lineitem.l_shipdate >= _d("1994-01-01"),
                         lineitem.l_shipdate < _d("1995-01-01"))
    shipped = li.group_by(q_partkey=li.l_partkey, q_suppkey=li.l_suppkey).aggregate(
        q_sum=li.l_quantity.sum())
    forest = part.filter(part.p_name.like("forest%"))
    # The semi join comes last: ibis-substrait 4.0.1 types a join over a
    # semi join's output wrongly (substrait-go: "invalid type"; in Q21 an
    # index out of range).
    ps = partsupp.join(shipped, [shipped.q_partkey == partsupp.ps_partkey,
                                 shipped.q_suppkey == partsupp.ps_suppkey])
    # ps_availqty > 0.5 * sum(l_quantity), doubled: exact without the
    # float literal 0.5 that ibis-substrait casts to the sum's decimal.
    ps = ps.filter(ps.ps_availqty * 2 > ps.q_sum)
    ps = ps.semi_join(forest, ps.ps_partkey == forest.p_partkey)
    j = supplier.join(nation, supplier.s_nationkey == nation.n_nationkey)
    j = j.semi_join(ps, j.s_suppkey == ps.ps_suppkey)
    # The filter after the semi join keeps the select (see _cross).
    j = j.filter(j.n_name == "CANADA")
    return j.select("s_name", "s_address").order_by("s_name")


def q21(t):
    supplier, lineitem, orders, nation = (
        t["supplier"], t["lineitem"], t["orders"], t["nation"])
    l1 = lineitem.filter(lineitem.l_receiptdate > lineitem.l_commitdate)
    l2 = lineitem.select(l2_orderkey=lineitem.l_orderkey, l2_suppkey=lineitem.l_suppkey)
    l3 = l1.select(l3_orderkey=l1.l_orderkey, l3_suppkey=l1.l_suppkey)
    j = (
        supplier.join(l1, supplier.s_suppkey == l1.l_suppkey)
        .join(orders, orders.o_orderkey == l1.l_orderkey)
        .join(nation, supplier.s_nationkey == nation.n_nationkey)
    )
    j = j.filter(j.o_orderstatus == "F", j.n_name == "SAUDI ARABIA")
    j = _anti_join(j, l3, lambda j, l3: (l3.l3_orderkey == j.l_orderkey) & (l3.l3_suppkey != j.l_suppkey),
                   "l3_orderkey")
    # The semi join last (see q20).
    j = j.semi_join(l2, [l2.l2_orderkey == j.l_orderkey, l2.l2_suppkey != j.l_suppkey])
    q = j.group_by("s_name").aggregate(numwait=lambda x: x.count())
    return q.order_by([ibis.desc("numwait"), "s_name"]).limit(100)


_CODES = ["13", "31", "23", "29", "30", "18", "17"]


def q22(t):
    customer, orders = t["customer"], t["orders"]
    # substring(c_phone FROM 1 FOR 2): ibis counts from 0.
    code = customer.c_phone.substr(0, 2)
    pos = customer.filter(customer.c_acctbal > 0.00, code.isin(_CODES))
    avg_bal = pos.aggregate(avg_bal=pos.c_acctbal.cast("float64").mean())
    c = customer.filter(customer.c_phone.substr(0, 2).isin(_CODES))
    c = c.join(avg_bal, c.c_acctbal > avg_bal.avg_bal)
    o = orders.select(o_custkey=orders.o_custkey)
    c = _anti_join(c, o, lambda c, o: c.c_custkey == o.o_custkey, "o_custkey")
    custsale = c.select(cntrycode=c.c_phone.substr(0, 2), c_acctbal=c.c_acctbal)
    q = custsale.group_by("cntrycode").aggregate(
        numcust=lambda x: x.count(), totacctbal=custsale.c_acctbal.sum())
    return q.order_by("cntrycode")


QUERIES = {name: fn for name, fn in globals().items()
           if name.startswith("q") and name[1:].isdigit() and callable(fn)}
