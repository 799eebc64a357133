package gpu

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/array"
)

// Row-wise string functions through the dictionary tables. When a row
// function's only non-constant argument is its first string, it is a
// function of that string alone: OpStrPred (Bool result) or OpStrMap
// (string result) with Str.Kind a StrRow kind evaluate it once per
// dictionary entry, as every device already does for like or substring,
// so it runs on the GPU too. Str.List then holds the constant arguments
// after the first, in order: strings as they are, integers in decimal.
// Only functions that give null exactly when an argument is null
// (RowNullIn) and no null constant take this form.

// rowTableArgs is the argument list of entry s.
func (f *StrFunc) rowTableArgs(s string) ([]RowValue, error) {
	isString, err := f.RowArgs(1 + len(f.List))
	if err != nil {
		return nil, err
	}
	if !isString(0) {
		return nil, fmt.Errorf("%s: the first argument is not a string", f.RowName())
	}
	args := make([]RowValue, 1+len(f.List))
	args[0] = RowValue{S: s}
	for i, c := range f.List {
		if isString(i + 1) {
			args[i+1] = RowValue{S: c}
			continue
		}
		v, err := strconv.ParseInt(c, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: constant argument %d %q is not an integer", f.RowName(), i+1, c)
		}
		args[i+1] = RowValue{I: v}
	}
	return args, nil
}

// checkRowTable reports a row function that cannot take the table form.
func (f *StrFunc) checkRowTable() error {
	if !f.RowNullIn() || (!f.RowResultString() && !f.RowBool()) {
		return fmt.Errorf("%s has no dictionary table form", f.RowName())
	}
	_, err := f.rowTableArgs("")
	return err
}

// rowEntry evaluates the function on one dictionary entry.
func (f *StrFunc) rowEntry(s string) (RowValue, error) {
	args, err := f.rowTableArgs(s)
	if err != nil {
		return RowValue{}, err
	}
	return f.EvalRow(args)
}

// checkRowEntries evaluates every entry once before a table is built: an
// entry the function fails on may belong to no row the query evaluates,
// which the table cannot know, so the query is refused (ErrUnsupported;
// the row-wise path decides row by row).
func (f *StrFunc) checkRowEntries(dict *array.String) error {
	if dict == nil {
		return nil
	}
	for i := 0; i < dict.Len(); i++ {
		if _, err := f.rowEntry(dict.Value(i)); err != nil {
			return fmt.Errorf("%s on a dictionary entry: %v: %w", f, err, ErrUnsupported)
		}
	}
	return nil
}

func (f *StrFunc) rowTableString() string {
	parts := make([]string, len(f.List))
	for i, c := range f.List {
		parts[i] = strconv.Quote(c)
	}
	return f.RowName() + "(_, " + strings.Join(parts, ", ") + ")"
}
