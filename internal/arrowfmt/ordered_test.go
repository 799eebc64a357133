package arrowfmt

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// keyed is a record of an int64 order key (nil: null) and a string value.
func keyed(t *testing.T, keys []any, vals []string) arrow.RecordBatch {
	t.Helper()
	kb := array.NewInt64Builder(memory.DefaultAllocator)
	vb := array.NewStringBuilder(memory.DefaultAllocator)
	for i, k := range keys {
		if k == nil {
			kb.AppendNull()
		} else {
			kb.Append(int64(k.(int)))
		}
		vb.Append(vals[i])
	}
	schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: kb.Type()}, {Name: "v", Type: vb.Type()}}, nil)
	rec := array.NewRecordBatch(schema, []arrow.Array{kb.NewArray(), vb.NewArray()}, int64(len(keys)))
	t.Cleanup(rec.Release)
	return rec
}

func TestCompareOrdered(t *testing.T) {
	want := keyed(t, []any{nil, 1, 1, 2, 3, 3, 3}, []string{"n", "a", "b", "c", "x", "y", "z"})
	for _, c := range []struct {
		name    string
		keys    []any
		vals    []string
		limited bool
		ties    string // "" for no note
		bad     string // part of the error, "" for none
	}{
		{"the same rows", []any{nil, 1, 1, 2, 3, 3, 3}, []string{"n", "a", "b", "c", "x", "y", "z"}, false, "", ""},
		{"ties in another order", []any{nil, 1, 1, 2, 3, 3, 3}, []string{"n", "b", "a", "c", "z", "x", "y"}, false, "multisets", ""},
		{"a tied row changed", []any{nil, 1, 1, 2, 3, 3, 3}, []string{"n", "b", "q", "c", "x", "y", "z"}, false, "", "tie in the order"},
		{"out of order", []any{nil, 1, 2, 1, 3, 3, 3}, []string{"n", "a", "c", "b", "x", "y", "z"}, false, "", "order key"},
		{"a row moved across keys", []any{nil, 1, 1, 2, 3, 3, 3}, []string{"n", "a", "c", "b", "x", "y", "z"}, false, "", "column \"v\""},
		{"other rows tied at the limit", []any{nil, 1, 1, 2, 3, 3, 3}, []string{"n", "a", "b", "c", "x", "w", "v"}, true, "at the LIMIT", ""},
		{"other tied rows without a limit", []any{nil, 1, 1, 2, 3, 3, 3}, []string{"n", "a", "b", "c", "x", "w", "v"}, false, "", "tie in the order"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ties, err := CompareOrdered(keyed(t, c.keys, c.vals), want, []int{0}, c.limited)
			switch {
			case c.bad == "" && err != nil:
				t.Fatalf("error %v, want none", err)
			case c.bad != "" && (err == nil || !strings.Contains(err.Error(), c.bad)):
				t.Fatalf("error %v, want one with %q", err, c.bad)
			case c.bad == "" && c.ties == "" && ties != "":
				t.Fatalf("note %q, want none", ties)
			case c.ties != "" && !strings.Contains(ties, c.ties):
				t.Fatalf("note %q, want one with %q", ties, c.ties)
			}
		})
	}
}
