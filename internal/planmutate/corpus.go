package planmutate

import (
	"fmt"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/rigel-db/rigel/substrait"
	proto "github.com/substrait-io/substrait-protobuf/go/substraitpb"
	pb "google.golang.org/protobuf/proto"
)

// Corpus is the repository's plans, decoded once, for fuzz targets that
// take (seed, ops): plan number seed (modulo their count) mutated by ops.
type Corpus struct {
	names []string
	plans []*proto.Plan
}

// OpenCorpus decodes the plans of Seeds(root); files that do not decode
// (the command line's malformed example, fuzz findings) are left out.
func OpenCorpus(root string) (*Corpus, error) {
	seeds, err := Seeds(root)
	if err != nil {
		return nil, err
	}
	c := &Corpus{}
	for _, s := range seeds {
		p, err := substrait.Decode(s.Data)
		if err != nil {
			continue
		}
		c.names = append(c.names, s.Name)
		c.plans = append(c.plans, p)
	}
	if len(c.plans) == 0 {
		return nil, fmt.Errorf("none of the %d plan files under %s decodes", len(seeds), root)
	}
	return c, nil
}

// Len is the number of plans.
func (c *Corpus) Len() int { return len(c.plans) }

// Mutated is plan seed (modulo Len) mutated by ops, in binary form, with
// the plan's name and what the mutations did.
func (c *Corpus) Mutated(seed int, ops []byte) (data []byte, name string, did []string) {
	i := seed % len(c.plans)
	p := pb.Clone(c.plans[i]).(*proto.Plan)
	did = Mutate(p, ops)
	// Deterministic: the same plan gives the same bytes, so that a
	// finding replays exactly.
	data, err := pb.MarshalOptions{Deterministic: true}.Marshal(p)
	if err != nil {
		// A mutation the wire format cannot hold (none known): the
		// unmutated plan stands in.
		data, _ = pb.Marshal(c.plans[i])
		did = append(did, "not encodable: "+err.Error())
	}
	return data, c.names[i], did
}

// Within runs f and returns nil when it returns within d; a panic in f
// becomes an error holding its value and stack, and an f still running
// after d an error saying so (f then runs on unobserved: the caller is
// expected to fail).
func Within(d time.Duration, f func()) error {
	done := make(chan error, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- fmt.Errorf("panic: %v\n%s", r, debug.Stack())
			}
		}()
		f()
		done <- nil
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		return fmt.Errorf("still running after %v", d)
	}
}

// Starts gives a (seed, ops) fuzz target its starting inputs: each plan
// unchanged, and each with one mutation, the kinds taken in turn.
func (c *Corpus) Starts(add func(seed uint16, ops []byte)) {
	for i := range c.plans {
		add(uint16(i), []byte{})
		add(uint16(i), []byte{byte(i % Kinds()), byte(i), byte(i * 7), 3, 1})
	}
}

// Fuzz is the body of a (seed, ops) fuzz target: it adds Starts, and for
// each input runs check on plan seed mutated by ops, failing the input
// when check returns an error, panics, or runs past deadline. The failure
// names the plan and the mutations that made it.
func (c *Corpus) Fuzz(f *testing.F, deadline time.Duration, check func(data []byte) error) {
	c.Starts(func(seed uint16, ops []byte) { f.Add(seed, ops) })
	f.Fuzz(func(t *testing.T, seed uint16, ops []byte) {
		data, name, did := c.Mutated(int(seed), ops)
		var checkErr error
		err := Within(deadline, func() { checkErr = check(data) })
		if err == nil {
			err = checkErr
		}
		if err != nil {
			t.Fatalf("%s mutated by\n  %s\n%v", name, strings.Join(did, "\n  "), err)
		}
	})
}
