package substrait

import (
	"os"
	"path/filepath"
	"testing"
)

// repoPlans lists every Substrait plan file in the repository.
func repoPlans(t *testing.T) []string {
	var files []string
	for _, pat := range []string{"../conformance/plans/*/*.pb", "../conformance/plans/*/*.json", "../cmd/rigel/testdata/*.json"} {
		m, _ := filepath.Glob(pat)
		files = append(files, m...)
	}
	if len(files) < 80 {
		t.Fatalf("found %d plan files, want the repository's 80 or more", len(files))
	}
	return files
}

// budgetMargin is how far below each budget the repository's largest plan
// stays: TPC-DS's plans are a few times TPC-H's.
const budgetMargin = 20

// Every plan of the repository stays far inside every budget.
func TestBudgetsLeaveRoomForRealPlans(t *testing.T) {
	var most planSize
	for _, f := range repoPlans(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		p, err := Decode(data)
		if err != nil {
			continue // the CLI's malformed example
		}
		s, err := measurePlan(p)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		most.rels, most.exprs, most.bytes = max(most.rels, s.rels), max(most.exprs, s.exprs), max(most.bytes, s.bytes)
		most.relHeight, most.exprDepth, most.work = max(most.relHeight, s.relHeight), max(most.exprDepth, s.exprDepth), max(most.work, s.work)
	}
	t.Logf("the largest figures: %d relations, %d expression nodes, %d bytes, relations %d deep, expressions %d deep, schema work %d",
		most.rels, most.exprs, most.bytes, most.relHeight, most.exprDepth, most.work)
	for _, c := range []struct {
		what        string
		most, limit uint64
	}{
		{"MaxRelations", most.rels, MaxRelations},
		{"MaxExpressions", most.exprs, MaxExpressions},
		{"MaxInlinedBytes", most.bytes, MaxInlinedBytes},
		{"MaxRelationDepth", uint64(most.relHeight), MaxRelationDepth},
		{"MaxExpressionDepth", uint64(most.exprDepth), MaxExpressionDepth},
		{"MaxSchemaWork", most.work, MaxSchemaWork},
	} {
		if c.most*budgetMargin > c.limit {
			t.Errorf("%s = %d is less than %d times the largest plan's %d", c.what, c.limit, budgetMargin, c.most)
		}
	}
}
