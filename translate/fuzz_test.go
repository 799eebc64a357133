package translate

import (
	"testing"

	"github.com/rigel-db/rigel/substrait"
)

// FuzzDecodeLoadTranslate feeds arbitrary bytes through everything a
// Substrait plan from outside meets before it runs (the Flight SQL server
// and the C ABI take plans from anyone): decoding (binary or JSON),
// loading and translation must return an error or a plan, never panic or
// hang. The seed corpus (testdata/fuzz/FuzzDecodeLoadTranslate) holds
// rigel's own TPC-H plans (binary), Isthmus plans (JSON) and the CLI's
// bad plans; `go test` runs it as a regression test, and
// `go test -fuzz FuzzDecodeLoadTranslate ./translate` explores from it.
func FuzzDecodeLoadTranslate(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := substrait.Decode(data)
		if err != nil {
			return
		}
		loaded, err := substrait.Load(p)
		if err != nil {
			return
		}
		_, _ = Translate(loaded)
	})
}
