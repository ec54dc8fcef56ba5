package money

import (
	"math"
	"math/big"
	"testing"
)

func TestFormat(t *testing.T) {
	for _, tc := range []struct {
		minor int64
		cur   string
		want  string
	}{
		{200, "NOK", "2.00"}, {5, "NOK", "0.05"}, {-5, "NOK", "-0.05"}, {0, "NOK", "0.00"},
		{150, "JPY", "150"}, {1500, "BHD", "1.500"}, {123456789, "EUR", "1234567.89"},
		{9007199254740993, "NOK", "90071992547409.93"},
		{math.MinInt64, "NOK", "-92233720368547758.08"},
	} {
		if got := Format(tc.minor, tc.cur); got != tc.want {
			t.Errorf("Format(%d, %s) = %s, want %s", tc.minor, tc.cur, got, tc.want)
		}
	}
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in, cur string
		want    int64
		ok      bool
	}{
		{"2.00", "NOK", 200, true}, {"2", "NOK", 200, true}, {"2.5", "NOK", 250, true}, {"-3.01", "NOK", -301, true},
		{"150", "JPY", 150, true}, {"1.5", "JPY", 0, false}, {"1.500", "BHD", 1500, true},
		{"2.001", "NOK", 0, false}, {"", "NOK", 0, false}, {".5", "NOK", 0, false}, {"5.", "NOK", 0, false},
		{"1e3", "NOK", 0, false}, {" 1", "NOK", 0, false}, {"99999999999999999999", "NOK", 0, false},
		{"90071992547409.93", "NOK", 9007199254740993, true},
	} {
		got, err := Parse(tc.in, tc.cur)
		if (err == nil) != tc.ok || (tc.ok && got != tc.want) {
			t.Errorf("Parse(%q, %s) = %d, %v", tc.in, tc.cur, got, err)
		}
	}
}

func TestFromWhole(t *testing.T) {
	if v, err := FromWhole(18000, "NOK"); err != nil || v != 1800000 {
		t.Fatal(v, err)
	}
	if v, _ := FromWhole(18000, "JPY"); v != 18000 {
		t.Fatal(v)
	}
	if _, err := FromWhole(math.MaxInt64/10, "NOK"); err == nil {
		t.Fatal("overflow accepted")
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"2.00", "-1", "1.500", "abc", "9999999999999999999"} {
		f.Add(s, "NOK")
	}
	f.Fuzz(func(t *testing.T, s, cur string) {
		v, err := Parse(s, cur)
		if err != nil {
			return
		}
		back, err := Parse(Format(v, cur), cur)
		if err != nil || back != v {
			t.Fatalf("%q -> %d -> %q -> %d %v", s, v, Format(v, cur), back, err)
		}
	})
}

// TestConvertRoundsHalfAwayFromZero: amounts convert exactly at the rate,
// between currencies of 0, 2 and 3 decimals, rounding half away from zero
// to the target's minor unit.
func TestConvertRoundsHalfAwayFromZero(t *testing.T) {
	for _, tc := range []struct {
		minor    int64
		from, to string
		rate     string
		want     int64
		ok       bool
	}{
		{5000, "JPY", "NOK", "0.0712", 35600, true},      // JPY 5000 = NOK 356.00
		{-5000, "JPY", "NOK", "0.0712", -35600, true},    // signs kept
		{100000, "NOK", "EUR", "0.08510638", 8511, true}, // NOK 1000.00 = EUR 85.10638: 85.11
		{1, "NOK", "JPY", "14.04494382", 0, true},        // NOK 0.01 = JPY 0.14: 0
		{4, "NOK", "JPY", "14.04494382", 1, true},        // NOK 0.04 = JPY 0.56: 1
		{-4, "NOK", "JPY", "14.04494382", -1, true},      // half away from zero, both signs
		{1000, "BHD", "NOK", "28.8", 2880, true},         // BHD 1.000 = NOK 28.80
		{1, "NOK", "BHD", "0.5", 5, true},                // NOK 0.01 = BHD 0.005
		{5, "NOK", "EUR", "0.1", 1, true},                // NOK 0.05 = EUR 0.005: exactly half, up
		{-5, "NOK", "EUR", "0.1", -1, true},
		{15, "NOK", "EUR", "0.1", 2, true}, // 0.015 up to 0.02
		{14, "NOK", "EUR", "0.1", 1, true},
		{math.MaxInt64, "NOK", "JPY", "2000", 0, false}, // past int64
		{1, "NOK", "EUR", "0", 0, false},
		{1, "NOK", "EUR", "-1", 0, false},
		{1, "NOK", "EUR", "1e3", 0, false},
		{1, "NOK", "EUR", "1/3", 0, false},
		{1, "NOK", "EUR", ".5", 0, false},
	} {
		got, err := Convert(tc.minor, tc.from, tc.to, tc.rate)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("Convert(%d %s -> %s at %s) = %d, %v; want %d", tc.minor, tc.from, tc.to, tc.rate, got, err, tc.want)
		}
	}
}

// TestAppendFormatAsBigDecimal: AppendFormat writes minor units as the
// exact decimal big.Rat writes them, for currencies of 0, 2, 3 and 4
// decimals and amounts up to the ends of int64, appending to what dst
// holds; Format is its text.
func TestAppendFormatAsBigDecimal(t *testing.T) {
	amounts := []int64{0, 1, -1, 5, 9, 10, 99, 100, 101, 999, 1000, 12345, -12345, math.MaxInt64, math.MinInt64, math.MinInt64 + 1}
	for i := int64(1); i < 1e18; i *= 7 {
		amounts = append(amounts, i, -i, i+3)
	}
	for _, cur := range []string{"JPY", "NOK", "BHD", "CLF"} {
		e := Exponent(cur)
		for _, m := range amounts {
			want := new(big.Rat).SetFrac(big.NewInt(m), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(e)), nil)).FloatString(e)
			if got := string(AppendFormat([]byte("x"), m, cur)); got != "x"+want {
				t.Errorf("%d %s: %q, want %q", m, cur, got, "x"+want)
			}
			if got := Format(m, cur); got != want {
				t.Errorf("Format(%d, %s) = %q, want %q", m, cur, got, want)
			}
		}
	}
}
