package translate

import (
	"errors"
	"fmt"
)

// ErrUnsupported marks a plan (or part) that rigel cannot run on a device
// yet; the engine then falls back to the host database, showing the reason.
var ErrUnsupported = errors.New("not supported by rigel yet")

func unsupported(what string) error { return fmt.Errorf("%s: %w", what, ErrUnsupported) }
