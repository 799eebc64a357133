package devicetest

import (
	"math/big"
	"testing"
)

func TestFormatDecimal(t *testing.T) {
	for _, c := range []struct {
		v     int64
		scale int32
		want  string
	}{{-5, 2, "-0.05"}, {12345, 2, "123.45"}, {0, 3, "0.000"}, {7, 0, "7"}, {-100, 2, "-1.00"}} {
		if got := FormatDecimal(big.NewInt(c.v), c.scale); got != c.want {
			t.Errorf("FormatDecimal(%d, %d) = %q, want %q", c.v, c.scale, got, c.want)
		}
	}
}

func TestFormatDate(t *testing.T) {
	if got := FormatDate(ParseDate("1998-09-02")); got != "1998-09-02" {
		t.Fatal(got)
	}
	if got := FormatDate(-1); got != "1969-12-31" {
		t.Fatal(got)
	}
}

func TestEqualRows(t *testing.T) {
	if err := EqualRows([]string{Row("1", F(1.0000000001))}, []string{Row("1", F(1))}, true, 1e-9); err != nil {
		t.Fatal(err)
	}
	if err := EqualRows([]string{Row("1", F(1.1))}, []string{Row("1", F(1))}, true, 1e-9); err == nil {
		t.Fatal("floats 10% apart compared equal")
	}
	if err := EqualRows([]string{Row("1.00")}, []string{Row("1.0")}, true, 1e-9); err == nil {
		t.Fatal("decimals of different scale compared equal")
	}
	if err := EqualRows([]string{"b", "a"}, []string{"a", "b"}, false, 0); err != nil {
		t.Fatal(err)
	}
	if err := EqualRows([]string{"b", "a"}, []string{"a", "b"}, true, 0); err == nil {
		t.Fatal("ordered comparison ignored order")
	}
	if err := EqualRows([]string{"a"}, []string{"a", "a"}, false, 0); err == nil {
		t.Fatal("row counts differ but compared equal")
	}
}
