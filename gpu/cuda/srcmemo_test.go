package cuda

import (
	"fmt"
	"testing"

	"github.com/rigel-db/rigel/gpu"
)

func TestMemoSourceReusesAndEvicts(t *testing.T) {
	d := &Device{}
	calls := 0
	gen := func(s string) func() (string, error) {
		return func() (string, error) { calls++; return s, nil }
	}
	p := &gpu.Pipeline{}
	for i := 0; i < 3; i++ {
		if s, _ := d.memoSource(srcKey{p: p, kind: "materialize"}, gen("a")); s != "a" {
			t.Fatalf("got %q", s)
		}
	}
	if calls != 1 {
		t.Fatalf("generated %d times for one pipeline, want 1", calls)
	}
	// Other inputs of the generator are part of the key.
	if s, _ := d.memoSource(srcKey{p: p, kind: "aggregate", extra: "[3]"}, gen("b")); s != "b" || calls != 2 {
		t.Fatalf("got %q after %d generations", s, calls)
	}
	// A failed generation is not remembered.
	if _, err := d.memoSource(srcKey{p: p, kind: "bad"}, func() (string, error) { return "", fmt.Errorf("no") }); err == nil {
		t.Fatal("no error")
	}
	if _, ok := d.srcs.src[srcKey{p: p, kind: "bad"}]; ok {
		t.Fatal("a failed generation was memoized")
	}
	for i := 0; i < srcMemoEntries; i++ {
		d.memoSource(srcKey{p: &gpu.Pipeline{}, kind: "materialize"}, gen("x"))
	}
	if len(d.srcs.src) != srcMemoEntries || len(d.srcs.order) != srcMemoEntries {
		t.Fatalf("memo holds %d entries (%d in order), bound %d", len(d.srcs.src), len(d.srcs.order), srcMemoEntries)
	}
	if _, ok := d.srcs.src[srcKey{p: p, kind: "materialize"}]; ok {
		t.Fatal("the oldest entry was not evicted")
	}
}
