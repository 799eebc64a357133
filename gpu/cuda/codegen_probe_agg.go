package cuda

import (
	"fmt"

	"github.com/rigel-db/rigel/gpu"
)

// A probe aggregate (aggPlan.probe > 0) is the aggregate kernel of Run with
// its row loop turned into a loop over the pairs of an inner join: probe
// row i, then each build row bj of i's hash chain (join.cu's rep[] and
// next[]). The per-row body is the same generated code; its columns are
// loaded at i or bj by probePreload. The kernel's Args are Run's, plus rep,
// next, join.cu's multi flag and a selection after the aggregate's seven
// words (aggregateOnce appends aggPlan.probeArgs). With a selection (not
// 0: rg_jn_select's list of the probe rows with a match) the loop walks the
// n entries of the list: entry ix is probe row sel[ix], with rep[ix].
const (
	probeRepWord   = 7  // from sinkWord: int32 rep[n], -1 for no match
	probeNextWord  = 8  // int32 next[nb], -1 ends a chain
	probeMultiWord = 9  // uint32, 0 when every chain is one row: next is not read
	probeSelWord   = 10 // int32 sel[n], or 0: entry ix is probe row ix
)

// probeRow is the probe row of loop entry ix.
func probeRow(S int) string {
	return fmt.Sprintf("(A.a[%d] ? (long long)((const int32_t *)A.a[%d])[ix] : ix)", S+probeSelWord, S+probeSelWord)
}

// probeNextStep is the chain step from build row bj: none when every key
// has one build row (no pair is made then with n == 0, so the flag is only
// read when its word is set).
func probeNextStep(S int) string {
	return fmt.Sprintf("(A.a[%d] != 0 && *(const uint32_t *)A.a[%d] == 0 ? -1 : ((const int32_t *)A.a[%d])[bj])", S+probeMultiWord, S+probeMultiWord, S+probeNextWord)
}

// probePreload loads, at the current scope, every column the filter and
// the aggregate's keys and arguments read: probe columns at i, build
// columns at bj. The expression generator then finds them loaded.
func probePreload(g *exprGen, ap *aggPlan) error {
	p := ap.p
	es := []*gpu.Expr{p.Filter}
	for _, k := range p.Keys {
		es = append(es, p.Project[k])
	}
	for _, l := range ap.aggs {
		if l.a.Kind != gpu.AggCountStar {
			es = append(es, p.Project[l.a.Arg])
		}
	}
	pc, bc := probeSide(ap.probe, es...)
	if err := loadAllAt(g, pc, "i"); err != nil {
		return err
	}
	if err := loadAllAt(g, bc, "bj"); err != nil {
		return fmt.Errorf("build side: %w", err)
	}
	return nil
}
