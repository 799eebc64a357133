package planmutate

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	pb "google.golang.org/protobuf/proto"
)

func openCorpus(t *testing.T) *Corpus {
	t.Helper()
	c, err := OpenCorpus("../..")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// The seeds are every plan of the repository: other producers' plans,
// the command line's examples and rigel's own TPC-H plans.
func TestSeedsCoverTheRepository(t *testing.T) {
	seeds, err := Seeds("../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"conformance/plans/datafusion-55.0.0-tpch/", "conformance/plans/ibis-4.0.1-tpch/",
		"conformance/plans/isthmus-0.89.1-tpch/", "conformance/plans/isthmus-tpch/", "cmd/rigel/testdata/",
		"translate/testdata/fuzz/FuzzDecodeLoadTranslate/duckdb-q01"} {
		found := false
		for _, s := range seeds {
			found = found || strings.HasPrefix(s.Name, want)
		}
		if !found {
			t.Errorf("no seed from %s", want)
		}
	}
	if c := openCorpus(t); c.Len() < 100 {
		t.Errorf("%d plans decode, want the repository's 100 or more", c.Len())
	}
}

// The same plan and bytes give the same mutated plan, byte for byte, so
// that a fuzzer's finding replays and minimises.
func TestMutateIsDeterministic(t *testing.T) {
	c := openCorpus(t)
	r := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		seed := r.IntN(c.Len())
		ops := make([]byte, r.IntN(24))
		for i := range ops {
			ops[i] = byte(r.IntN(256))
		}
		a, _, did := c.Mutated(seed, ops)
		b, _, _ := c.Mutated(seed, ops)
		if !bytes.Equal(a, b) {
			t.Fatalf("plan %d mutated by %q twice differs (%v)", seed, ops, did)
		}
	}
}

// Every kind of mutation changes some plan, and says so.
func TestEveryKindChangesAPlan(t *testing.T) {
	c := openCorpus(t)
	for k, m := range mutations {
		changed := false
		for seed := 0; seed < c.Len() && !changed; seed++ {
			for arg := 0; arg < 8 && !changed; arg++ {
				ops := []byte{byte(k), byte(arg), byte(arg * 37), byte(arg * 11), 1}
				data, _, did := c.Mutated(seed, ops)
				orig, _ := pb.MarshalOptions{Deterministic: true}.Marshal(c.plans[seed])
				changed = !bytes.Equal(data, orig) && len(did) > 0 && strings.HasPrefix(did[0], m.name+": ")
			}
		}
		if !changed {
			t.Errorf("mutation %q changed no plan", m.name)
		}
	}
}
