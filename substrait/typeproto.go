package substrait

import (
	"fmt"

	"github.com/substrait-io/substrait-go/v8/types"
	proto "github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// TypeProto is types.TypeToProto without its panic: substrait-go v8.1.1
// panics ("unimplemented type") on types its own parser makes, such as a
// *types.IntervalCompoundType (it handles only the value form), which a
// DuckDB INTERVAL column becomes. Callers get an error naming the type and
// refuse or fall back instead of crashing.
func TypeProto(t types.Type) (p *proto.Type, err error) {
	if t == nil {
		return nil, fmt.Errorf("a missing type")
	}
	if c, ok := t.(*types.IntervalCompoundType); ok && c != nil {
		t = *c
	}
	defer func() {
		if r := recover(); r != nil {
			p, err = nil, fmt.Errorf("type %s cannot be converted (%v): %w", t, r, ErrNotImplemented)
		}
	}()
	return types.TypeToProto(t), nil
}
