package duckdbbridge

import (
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/gpu/cuda"
	"github.com/rigel-db/rigel/gpu/host"
	pb "github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// corpusDevice is the device TestCorpus runs the engine on:
// RIGEL_CORPUS_DEVICE=cuda picks the GPU (the test skips, saying so, where
// there is none); anything else, the host device.
func corpusDevice(t *testing.T) (gpu.Device, string) {
	if os.Getenv("RIGEL_CORPUS_DEVICE") != "cuda" {
		return host.New(), "host"
	}
	d, err := cuda.Open()
	if err != nil {
		t.Skipf("RIGEL_CORPUS_DEVICE=cuda but no GPU here: %v", err)
	}
	t.Cleanup(func() { d.Close() })
	return d, "cuda"
}

// operatorsOf lists the relation kinds a plan uses, once each and sorted:
// the oneof name of every substrait.Rel in it ("read", "filter", ...), with
// the join type for joins ("join:inner"), and "window function" and
// "subquery" where expressions hold them, so that the report can say per
// operator how many queries ran on the device.
func operatorsOf(p *pb.Plan) []string {
	seen := map[string]bool{}
	var walk func(m protoreflect.Message)
	walk = func(m protoreflect.Message) {
		if rel, ok := m.Interface().(*pb.Rel); ok {
			if f := m.WhichOneof(m.Descriptor().Oneofs().ByName("rel_type")); f != nil {
				name := string(f.Name())
				if j := rel.GetJoin(); j != nil {
					name += ":" + joinTypeName(j.GetType())
				}
				seen[name] = true
			}
		}
		// Expressions that are operators of their own on the device.
		switch m.Interface().(type) {
		case *pb.Expression_WindowFunction:
			seen["window function"] = true
		case *pb.Expression_Subquery:
			seen["subquery"] = true
		}
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			switch {
			case fd.IsList() && fd.Message() != nil:
				l := v.List()
				for i := 0; i < l.Len(); i++ {
					walk(l.Get(i).Message())
				}
			case fd.IsMap():
				if fd.MapValue().Message() != nil {
					v.Map().Range(func(_ protoreflect.MapKey, mv protoreflect.Value) bool {
						walk(mv.Message())
						return true
					})
				}
			case fd.Message() != nil:
				walk(v.Message())
			}
			return true
		})
	}
	walk(p.ProtoReflect())
	ops := make([]string, 0, len(seen))
	for k := range seen {
		ops = append(ops, k)
	}
	sort.Strings(ops)
	return ops
}

// joinTypeName is "inner" for JOIN_TYPE_INNER and so on.
func joinTypeName(t pb.JoinRel_JoinType) string {
	return strings.ToLower(strings.TrimPrefix(t.String(), "JOIN_TYPE_"))
}
