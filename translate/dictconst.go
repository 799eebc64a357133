package translate

import (
	"fmt"

	"github.com/rigel-db/rigel/gpu"
)

// refuseDictConst refuses a string-valued expression without a string
// column in it (a null string literal projected alone): the device holds a
// string value as a code into a column's dictionary, and such an expression
// has none to take, so it would fail at run time instead of falling back.
func refuseDictConst(e *gpu.Expr) error {
	if e.Type.Kind != gpu.Dict || hasDictCol(e) {
		return nil
	}
	return unsupported(fmt.Sprintf("string expression %s without a string column (no dictionary for its values)", e))
}

func hasDictCol(e *gpu.Expr) bool {
	if e.Op == gpu.OpCol && e.Type.Kind == gpu.Dict {
		return true
	}
	for _, a := range e.Args {
		if hasDictCol(a) {
			return true
		}
	}
	return false
}
