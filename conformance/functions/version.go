package functions

import "runtime/debug"

// specVersion is the version of the spec module the cases come from, read
// from the binary's build information so that it follows go.mod.
var specVersion = func() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/substrait-io/substrait" {
				return d.Version
			}
		}
	}
	return "(version unknown)"
}()
