package serve

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/duckdb/duckdb-go/v2"
	duckdbbridge "github.com/rigel-db/rigel/duckdb-bridge"
	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/internal/arrowrec"
	"github.com/rigel-db/rigel/internal/ipcfiles"
	"github.com/rigel-db/rigel/substrait"
	"github.com/rigel-db/rigel/translate"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// duckdbError matches DuckDB's error texts ("Parser Error: ...", "Binder
// Error: ...", "Catalog Error: ..."): duckdb-go's Arrow API returns them as
// plain errors.
var duckdbError = regexp.MustCompile(`^[A-Za-z][A-Za-z ]* Error: `)

// toStatus gives an engine error the Flight (gRPC) status a client can act
// on; the message is the engine's, unchanged (a SQL error is DuckDB's own
// text).
func toStatus(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := status.FromError(err); ok {
		return err
	}
	var duck *duckdb.Error
	code := codes.Internal
	switch {
	case errors.Is(err, context.Canceled):
		code = codes.Canceled
	case errors.Is(err, context.DeadlineExceeded):
		code = codes.DeadlineExceeded
	case errors.Is(err, substrait.ErrMalformed), errors.Is(err, substrait.ErrTooLarge):
		code = codes.InvalidArgument
	case errors.Is(err, duckdbbridge.ErrUnknownTable):
		code = codes.NotFound
	case errors.Is(err, substrait.ErrUnknownFunction), errors.Is(err, substrait.ErrNotImplemented),
		errors.Is(err, translate.ErrUnsupported), errors.Is(err, gpu.ErrUnsupported):
		code = codes.Unimplemented
	case errors.Is(err, duckdbbridge.ErrNotAQuery):
		code = codes.PermissionDenied
	case errors.Is(err, gpu.ErrOutOfMemory), errors.Is(err, arrowrec.ErrTooLarge):
		code = codes.ResourceExhausted
	case errors.Is(err, duckdbbridge.ErrInternal):
		code = codes.Internal
	case errors.Is(err, ipcfiles.ErrNotAllowed):
		code = codes.PermissionDenied
	case errors.Is(err, ipcfiles.ErrNotRegular):
		code = codes.InvalidArgument
	case errors.Is(err, ipcfiles.ErrTooLarge):
		code = codes.ResourceExhausted
	case errors.As(err, &duck), duckdbError.MatchString(err.Error()):
		code = codes.InvalidArgument
		switch msg := err.Error(); {
		case strings.HasPrefix(msg, "INTERNAL Error"):
			code = codes.Internal
		case strings.HasPrefix(msg, "Permission Error"): // a file DuckDB may not read
			code = codes.PermissionDenied
		}
	}
	return status.Error(code, cutLine(err.Error(), MaxErrorText))
}

// MaxLogLine bounds one message of the server's log; MaxErrorText one
// error text sent to a client. Both may quote what a client sent (a SQL
// text, a plan's field), and a client must not make the log grow by
// megabytes a request, nor send an error too large for a gRPC trailer
// (Java clients refuse trailers over 8 KiB).
const (
	MaxLogLine   = 8 << 10
	MaxErrorText = 4 << 10
)

// cutLine shortens s to at most max bytes (at a UTF-8 boundary), saying
// how much was cut.
func cutLine(s string, max int) string {
	if len(s) <= max {
		return s
	}
	note := func(n int) string { return fmt.Sprintf(" ... (%d more bytes cut)", n) }
	end := max - len(note(len(s))) // room for the longest count
	for end > 0 && !utf8.RuneStart(s[end]) {
		end--
	}
	return s[:end] + note(len(s)-end)
}
