SELECT count(*), sum(l_orderkey), sum(l_partkey) FROM supplier, lineitem, nation WHERE s_suppkey = l_suppkey AND s_nationkey = n_nationkey AND n_name = 'IRAQ'
