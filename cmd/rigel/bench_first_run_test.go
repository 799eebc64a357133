package main

import (
	"strings"
	"testing"
)

// TestOtherConstants: the variants keep their query's meaning with new
// literals: Q6's year moves as a whole (an empty date range, which DuckDB
// answers without reading, would time nothing).
func TestOtherConstants(t *testing.T) {
	vs, err := otherConstants([]int{1, 6})
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 2 {
		t.Fatalf("%d variants, want 2", len(vs))
	}
	q6 := vs[1].sql
	for _, want := range []string{">= CAST('1995-01-01' AS date)", "< CAST('1996-01-01' AS date)", "BETWEEN 0.04 AND 0.06", "< 25"} {
		if !strings.Contains(q6, want) {
			t.Errorf("Q6 variant lacks %q:\n%s", want, q6)
		}
	}
	if !strings.Contains(vs[0].sql, "'1998-08-15'") || vs[0].inMeans || vs[1].inMeans {
		t.Errorf("Q1 variant or the means flag: %+v", vs[0])
	}
}
