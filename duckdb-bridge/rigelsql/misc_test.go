package rigelsql

import "testing"

// Statements of other shapes come back as duckdb-go gives them, whoever
// runs them.
func TestOtherStatementsSameAsDuckDB(t *testing.T) {
	path := newDB(t)
	duck := openDB(t, "duckdb", path)
	rig := openDB(t, "rigel", path+"?rigel_device=host")
	// rigel's device reads a JSON column as VARCHAR; duckdb-go parses it.
	if _, err := duck.Exec(`CREATE TABLE j AS SELECT '{"a": [1, 2]}'::JSON AS doc`); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"SELECT 1 AS one, 'a' AS s, NULL AS n",
		"VALUES (1, 'x'), (2, NULL)",
		"FROM g ORDER BY grp",
		"SELECT * FROM range(3)",
		"SHOW TABLES",
		"DESCRIBE g",
		"PRAGMA table_info('g')",
		"SUMMARIZE g",
		"SELECT doc FROM j",
		"SELECT '{\"b\": true}'::JSON AS doc",
		"SELECT ['a', 'b'] AS l, {'k': 1} AS st, gen_random_uuid() IS NOT NULL AS u",
		"SELECT grp::ENUM('a', 'b', 'c') AS e FROM g ORDER BY grp",
		"SELECT w, sum(w) OVER (ORDER BY grp) AS running FROM g ORDER BY grp",
	} {
		got, gt := rowsOf(t, rig, q)
		want, wt := rowsOf(t, duck, q)
		sameRows(t, q, got, want, gt, wt)
	}
}
