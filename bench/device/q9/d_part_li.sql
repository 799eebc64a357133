SELECT count(*), sum(l_extendedprice), sum(l_orderkey) FROM part, lineitem WHERE p_partkey = l_partkey AND p_name LIKE '%green%'
