SELECT count(*), sum(p_partkey) FROM part WHERE p_name LIKE '%green%'
