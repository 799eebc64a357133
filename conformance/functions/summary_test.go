package functions

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/rigel-db/rigel/gpu/host"
)

// The report's totals agree with the results, every test file has a row,
// and every outcome is counted once.
func TestReportTotals(t *testing.T) {
	suite, err := LoadSuite()
	if err != nil {
		t.Fatal(err)
	}
	results := NewRunner(host.New()).RunAll(context.Background(), suite)
	perFile, total := Summarize(suite, results)
	skipped := 0
	for _, sk := range suite.Skipped {
		skipped += sk.Cases
	}
	if total.Cases != len(results)+skipped {
		t.Errorf("total %d cases, want %d run + %d skipped", total.Cases, len(results), skipped)
	}
	if total.Pass+total.Fail+total.Unsupported+total.Skipped != total.Cases {
		t.Errorf("outcomes do not add up: %+v", total)
	}
	var buf bytes.Buffer
	if err := WriteMarkdown(&buf, suite, results, "host"); err != nil {
		t.Fatal(err)
	}
	report := buf.String()
	line := fmt.Sprintf("**Total: %d cases, %d pass, %d fail, %d unsupported, %d skipped.**",
		total.Cases, total.Pass, total.Fail, total.Unsupported, total.Skipped)
	if !strings.Contains(report, line) {
		t.Errorf("report lacks %q", line)
	}
	for f, tl := range perFile {
		row := fmt.Sprintf("| %s | %d | %d | %d | %d | %d |", f, tl.Cases, tl.Pass, tl.Fail, tl.Unsupported, tl.Skipped)
		if !strings.Contains(report, row) {
			t.Errorf("report lacks the row %q", row)
		}
	}
}
