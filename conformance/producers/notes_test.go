package producers

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ibis-substrait declares its decimal products with the operands' scale;
// rigel runs them as functions_arithmetic_decimal.yaml types them and says
// so on the result and at the top of its EXPLAIN text, never silently.
func TestDerivedDecimalsAreNoted(t *testing.T) {
	eng := openEngine(t)
	data, err := os.ReadFile(filepath.Join(root, "conformance", "plans", "ibis-"+IbisVersion+"-tpch", "q06.pb"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := eng.RunPlan(context.Background(), data)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Release()
	want := "multiply(decimal(15,2), decimal(15,2)) is declared decimal(15,2); functions_arithmetic_decimal.yaml derives decimal(31,4), which rigel uses"
	if len(res.Notes) != 2 || res.Notes[0] != want {
		t.Errorf("notes %q, want first %q", res.Notes, want)
	}
	if !strings.HasPrefix(res.Plan, "[note] "+want+"\n") {
		t.Errorf("EXPLAIN text does not start with the note:\n%s", res.Plan)
	}
	if got := res.Record.Schema().Field(0).Type.String(); got != "decimal(38, 4)" {
		t.Errorf("revenue is %s, want decimal(38, 4) (sum of the derived products)", got)
	}
}
