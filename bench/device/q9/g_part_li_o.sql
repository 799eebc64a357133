SELECT count(*), sum(o_orderkey), sum(extract(year FROM o_orderdate)) FROM part, lineitem, orders WHERE p_partkey = l_partkey AND o_orderkey = l_orderkey AND p_name LIKE '%green%'
