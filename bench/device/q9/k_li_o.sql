SELECT count(*), sum(o_orderkey) FROM lineitem, orders WHERE o_orderkey = l_orderkey AND extract(year FROM o_orderdate) = 1997
