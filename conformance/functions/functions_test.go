package functions

import (
	"context"
	"os"
	"testing"

	"github.com/rigel-db/rigel/gpu/host"
)

const baselineFile = "baseline.txt"

// TestBaseline runs every case on the host device and fails when a case the
// baseline lists no longer passes. RIGEL_UPDATE_BASELINE=1 rewrites the
// baseline from this run instead.
func TestBaseline(t *testing.T) {
	suite, err := LoadSuite()
	if err != nil {
		t.Fatal(err)
	}
	dev := host.New()
	defer dev.Close()
	results := NewRunner(dev).RunAll(context.Background(), suite)
	_, total := Summarize(suite, results)
	t.Logf("%d cases: %d pass, %d fail, %d unsupported, %d skipped",
		total.Cases, total.Pass, total.Fail, total.Unsupported, total.Skipped)

	if os.Getenv("RIGEL_UPDATE_BASELINE") == "1" {
		if err := WriteBaseline(baselineFile, results); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s (%d passing cases)", baselineFile, total.Pass)
		return
	}
	want, err := ReadBaseline(baselineFile)
	if err != nil {
		t.Fatalf("read baseline: %v (create it with RIGEL_UPDATE_BASELINE=1)", err)
	}
	byID := map[string]Result{}
	for _, r := range results {
		byID[r.Case.ID] = r
	}
	for id := range want {
		r, ok := byID[id]
		switch {
		case !ok:
			t.Errorf("%s: in the baseline but no longer in the suite", id)
		case r.Outcome != Pass:
			t.Errorf("%s: regressed to %s: %s: %s (%s)", id, r.Outcome, r.Reason, r.Detail, r.Case.Text)
		}
	}
	newPasses := 0
	for _, r := range results {
		if r.Outcome == Pass && !want[r.Case.ID] {
			newPasses++
			t.Logf("new pass, not in the baseline: %s %s", r.Case.ID, r.Case.Text)
		}
	}
	if newPasses > 0 {
		t.Logf("%d cases pass that the baseline does not list: refresh it with RIGEL_UPDATE_BASELINE=1 go test ./conformance/functions/", newPasses)
	}
}

// TestOverridesCurrent fails when an override no longer matches its case:
// the spec data moved and the override must be checked (or dropped).
func TestOverridesCurrent(t *testing.T) {
	suite, err := LoadSuite()
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range suite.StaleOverrides {
		t.Errorf("stale override: %s", st)
	}
}
