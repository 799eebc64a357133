SELECT count(*), sum(ps_supplycost * l_quantity) FROM lineitem, partsupp WHERE ps_partkey = l_partkey AND ps_suppkey = l_suppkey
