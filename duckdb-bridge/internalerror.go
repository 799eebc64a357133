package duckdbbridge

import (
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
)

// ErrInternal marks a bug in rigel that a query ran into: a panic caught at
// the engine's door. The query fails with it; the process and every other
// query go on.
var ErrInternal = errors.New("internal error (a bug in rigel; please report it with the query or plan)")

// recoverBug, deferred by every exported entry point that runs a query or a
// plan, turns a panic into an error wrapping ErrInternal that says where it
// happened (the innermost frames of rigel's code), so that a malformed plan
// that slips past the checks costs its caller one error, never the process:
// the CLI, the server and the C ABI all reach the engine through these
// doors.
func recoverBug(err *error) {
	r := recover()
	if r == nil {
		return
	}
	*err = fmt.Errorf("%w: %v%s", ErrInternal, r, panicSite(debug.Stack()))
}

// panicSite picks, from a goroutine's stack, the first function of rigel's
// own code below the runtime's panic machinery: " (at pkg.Func file:line)".
func panicSite(stack []byte) string {
	lines := strings.Split(string(stack), "\n")
	for i := 0; i+1 < len(lines); i++ {
		fn := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(fn, "github.com/rigel-db/rigel/") || strings.Contains(fn, "recoverBug") {
			continue
		}
		fn = strings.TrimPrefix(fn, "github.com/rigel-db/rigel/")
		if p := strings.LastIndexByte(fn, '('); p > 0 {
			fn = fn[:p]
		}
		at := strings.TrimSpace(lines[i+1])
		if p := strings.LastIndex(at, " +0x"); p > 0 {
			at = at[:p]
		}
		if p := strings.Index(at, "/rigel/"); p >= 0 {
			at = at[p+len("/rigel/"):]
		}
		return fmt.Sprintf(" (at %s %s)", fn, at)
	}
	return ""
}
