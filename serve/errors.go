package serve

import (
	"context"
	"errors"
	"regexp"
	"strings"

	"github.com/duckdb/duckdb-go/v2"
	duckdbbridge "github.com/rigel-db/rigel/duckdb-bridge"
	"github.com/rigel-db/rigel/gpu"
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
	case errors.Is(err, substrait.ErrMalformed):
		code = codes.InvalidArgument
	case errors.Is(err, duckdbbridge.ErrUnknownTable):
		code = codes.NotFound
	case errors.Is(err, substrait.ErrUnknownFunction), errors.Is(err, substrait.ErrNotImplemented),
		errors.Is(err, translate.ErrUnsupported), errors.Is(err, gpu.ErrUnsupported):
		code = codes.Unimplemented
	case errors.Is(err, duckdbbridge.ErrNotAQuery):
		code = codes.PermissionDenied
	case errors.Is(err, gpu.ErrOutOfMemory):
		code = codes.ResourceExhausted
	case errors.As(err, &duck), duckdbError.MatchString(err.Error()):
		code = codes.InvalidArgument
		if strings.HasPrefix(err.Error(), "INTERNAL Error") {
			code = codes.Internal
		}
	}
	return status.Error(code, err.Error())
}
