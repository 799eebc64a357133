package functions

import (
	"context"
	"strings"
	"testing"

	"github.com/rigel-db/rigel/gpu/host"
)

// The rewrite turns one flat group into one group per row, leaves other
// lines alone and sets "(())" aside.
func TestRewriteCompactRows(t *testing.T) {
	in := "### SUBSTRAIT_AGGREGATE_TEST: v1.0\n# g\n" +
		"((1.0, Null, -3.5)) std_dev(SAMPLE::enum, col0::fp64?) = 1.0::fp64?\n" +
		"(()) std_dev(SAMPLE::enum, col0::fp32) = Null::fp32?\n" +
		"((1, 5), (2, 6)) max(col1::i32) = 6::i32?\n"
	out, kept, left, err := rewriteCompactRows(in)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "\n((1.0), (Null), (-3.5)) std_dev(SAMPLE::enum, col0::fp64?) = 1.0::fp64?\n") {
		t.Errorf("flat group not split per row:\n%s", out)
	}
	if !strings.Contains(out, "\n((1, 5), (2, 6)) max(col1::i32) = 6::i32?\n") {
		t.Errorf("multi-row line changed:\n%s", out)
	}
	if !strings.Contains(out, "\n# (()) std_dev") {
		t.Errorf("empty table not commented out:\n%s", out)
	}
	if len(kept) != 2 || kept[0] != 0 || kept[1] != 2 {
		t.Errorf("kept = %v, want [0 2]", kept)
	}
	if len(left) != 1 || left[0].index != 1 {
		t.Errorf("left = %+v, want case 1", left)
	}
}

// The pinned spec's std_dev and variance files load through the rewrite,
// every case but the empty-table one, and none of their cases fail on the host.
func TestStatsFilesLoadAndRun(t *testing.T) {
	s, err := LoadSuite()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"arithmetic/std_dev.test": 28, "arithmetic/variance.test": 32}
	got := map[string]int{}
	r := NewRunner(host.New())
	for _, c := range s.Cases {
		if _, ok := want[c.File]; !ok {
			continue
		}
		got[c.File]++
		res := r.Run(context.Background(), c)
		t.Logf("%s %s: %s %s %s", c.ID, c.Text, res.Outcome, res.Reason, res.Detail)
		if res.Outcome == Fail {
			t.Errorf("%s %s: %s (%s)", c.ID, c.Text, res.Reason, res.Detail)
		}
	}
	for f, n := range want {
		if got[f] != n {
			t.Errorf("%s: %d cases loaded, want %d", f, got[f], n)
		}
	}
	for _, sk := range s.Skipped {
		if _, ok := want[sk.File]; ok && sk.Cases != 1 {
			t.Errorf("%s: %d cases skipped, want 1 (the empty table)", sk.File, sk.Cases)
		}
	}
}

// The YAML's older std_dev/variance signature takes the distribution as an
// option (DuckDB's producer writes it so); without one, or with a rounding
// other than TIE_TO_EVEN, rigel refuses rather than guess.
func TestStatsOptionForm(t *testing.T) {
	const arith = "/extensions/functions_arithmetic.yaml"
	tests := []struct {
		line   string
		want   Outcome
		reason string
	}{
		{"std_dev((1.0, 2.0, 3.0)::fp64) [distribution:POPULATION] = 0.816496580927726::fp64?", Pass, ""},
		{"variance((1.0, 2.0, 3.0, null)::fp64?) [distribution:SAMPLE] = 1.0::fp64?", Pass, ""},
		{"variance((1.0, 2.0, 3.0)::fp64) [distribution:SAMPLE] = 1.5::fp64?", Fail, "wrong value"},
		{"std_dev((1.0, 2.0, 3.0)::fp64) = 1.0::fp64?", Unsupported, "without a distribution"},
		{"variance((1.0, 2.0, 3.0)::fp32) [distribution:SAMPLE, rounding:FLOOR] = 1.0::fp32?", Unsupported, "rounding=FLOOR"},
	}
	for _, tt := range tests {
		r := runLine(t, "AGGREGATE", arith, tt.line)
		if r.Outcome != tt.want || !strings.Contains(r.Reason+" "+r.Detail, tt.reason) {
			t.Errorf("%s: got %s (%s: %s), want %s (%q)", tt.line, r.Outcome, r.Reason, r.Detail, tt.want, tt.reason)
		}
	}
}
