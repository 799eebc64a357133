package devicetest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/rigel-db/rigel/gpu"
)

func segmentCases() []testCase {
	return []testCase{
		{"segments/every_kind", testUploadSegments},
		{"segments/wrong_rows", testUploadSegmentsWrongRows},
	}
}

// uploadSegments uploads arr through dev's SegmentUploader in segments of
// per rows (slices of arr).
func uploadSegments(dev gpu.Device, arr arrow.Array, per int) (gpu.Column, error) {
	su, ok := dev.(gpu.SegmentUploader)
	if !ok {
		return nil, fmt.Errorf("%s uploads no segments", dev.Info().Name)
	}
	return su.UploadSegments(context.Background(), arr.Len(), func(put func(arrow.Array) error) error {
		for i := 0; i == 0 || i < arr.Len(); i += per {
			if err := put(array.NewSlice(arr, int64(i), int64(min(i+per, arr.Len())))); err != nil {
				return err
			}
		}
		return nil
	})
}

// A column uploaded a segment at a time is the column Upload makes of the
// whole: its type (nullable exactly when some segment has nulls, wherever
// they are), its rows and, for strings, its dictionary (the segments of a
// dictionary array share one).
func testUploadSegments(t *testing.T, dev gpu.Device) {
	if _, ok := dev.(gpu.SegmentUploader); !ok {
		t.Skip("the device uploads no segments")
	}
	for _, rt := range roundTripValues() {
		if rt.dt == LString {
			continue
		}
		var vals []any
		for range 5 {
			vals = append(vals, rt.vals...)
		}
		n := len(vals)
		variants := map[string][]any{"plain": vals, "empty": {}}
		for name, at := range map[string]int{"nulls_first": 0, "nulls_middle": n / 2, "nulls_last": n - 1} {
			v := append([]any(nil), vals...)
			v[at] = nil
			variants[name] = v
		}
		for name, v := range variants {
			for _, per := range []int{1, 3, n} {
				t.Run(fmt.Sprintf("%s/%s/per%d", rt.dt, name, per), func(t *testing.T) {
					arr := MakeArray(rt.dt, v...)
					if rt.dt == String {
						arr = dictionaryOf(t, arr)
					}
					defer arr.Release()
					arr.Retain() // Upload releases one reference
					whole := Upload(t, dev, arr)
					defer whole.Release()
					col, err := uploadSegments(dev, arr, per)
					if err != nil {
						t.Fatal(err)
					}
					defer col.Release()
					if got, want := col.Type(), whole.Type(); got != want {
						t.Fatalf("type %s, Upload of the whole: %s", got, want)
					}
					if col.Len() != arr.Len() {
						t.Fatalf("Len() = %d, want %d", col.Len(), arr.Len())
					}
					if !gpu.SameDictionary(col.Dictionary(), whole.Dictionary()) {
						t.Fatal("the dictionary differs from Upload's")
					}
					if err := EqualRows(Rows(t, dev, []gpu.Column{col}), Rows(t, dev, []gpu.Column{whole}), true, 0); err != nil {
						t.Fatal(err)
					}
				})
			}
		}
	}
}

// dictionaryOf is strings as a dictionary array over their distinct
// values in byte order (what the loader's dictionary segments are).
func dictionaryOf(t *testing.T, arr arrow.Array) arrow.Array {
	t.Helper()
	enc, err := gpu.EncodeDictionary(arr)
	if err != nil {
		t.Fatal(err)
	}
	codes := make([]any, len(enc.Codes))
	for i, c := range enc.Codes {
		if enc.Valid == nil || enc.Valid[i] {
			codes[i] = int64(c)
		}
	}
	idx := MakeArray(I32, codes...)
	defer idx.Release()
	defer enc.Values.Release()
	return array.NewDictionaryArray(&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}, idx, enc.Values)
}

// Segments of more or fewer rows than announced are an error, and leave
// nothing allocated behind.
func testUploadSegmentsWrongRows(t *testing.T, dev gpu.Device) {
	su, ok := dev.(gpu.SegmentUploader)
	if !ok {
		t.Skip("the device uploads no segments")
	}
	arr := MakeArray(I64, int64(1), int64(2), int64(3))
	defer arr.Release()
	for _, rows := range []int{2, 4} {
		_, err := su.UploadSegments(context.Background(), rows, func(put func(arrow.Array) error) error {
			arr.Retain()
			return put(arr)
		})
		if err == nil || !strings.Contains(err.Error(), "announced") {
			t.Fatalf("3 rows announced as %d: %v, want an error naming the rows announced", rows, err)
		}
	}
}
