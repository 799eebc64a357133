package fallback_test

import (
	"os"
	"path/filepath"
	"testing"
)

// A CSV read without value_treated_as_null has no null: an empty field,
// quoted or not, is the empty string (DuckDB 1.5.3 refused the empty null
// list this read was once written with).
func TestCSVWithoutNullMarker(t *testing.T) {
	csv := filepath.Join(t.TempDir(), "t.csv")
	if err := os.WriteFile(csv, []byte("0,\n1,\"\"\n2,x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	runRelCases(t, tpchEngine(t), []relCase{{
		name:  "CSV without a null marker",
		rel:   files(`{"uriPath":"` + csv + `","text":{"fieldDelimiter":",","quote":"\"","escape":"\""}}`),
		names: []string{"k", "s"},
		sql:   "SELECT * FROM (VALUES (0::BIGINT, ''), (1, ''), (2, 'x')) v(k, s)",
	}})
}
