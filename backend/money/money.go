package money

import (
	"errors"
	"math/big"
	"strconv"
	"strings"
)

// exponents lists ISO 4217 currencies whose minor unit is not 2 digits.
var exponents = map[string]int{
	"BIF": 0, "CLP": 0, "DJF": 0, "GNF": 0, "ISK": 0, "JPY": 0, "KMF": 0, "KRW": 0,
	"PYG": 0, "RWF": 0, "UGX": 0, "UYI": 0, "VND": 0, "VUV": 0, "XAF": 0, "XOF": 0, "XPF": 0,
	"BHD": 3, "IQD": 3, "JOD": 3, "KWD": 3, "LYD": 3, "OMR": 3, "TND": 3,
	"CLF": 4, "UYW": 4,
}

// Exponent returns the number of decimals of currency's minor unit (2 for
// currencies not listed as different).
func Exponent(currency string) int {
	if e, ok := exponents[currency]; ok {
		return e
	}
	return 2
}

// Format writes minor units of currency as a decimal amount with the
// currency's decimals ("1234.50", "-0.05"); AppendFormat's text.
func Format(minor int64, currency string) string {
	var buf [24]byte // the longest int64 with a sign and a point
	return string(AppendFormat(buf[:0], minor, currency))
}

// AppendFormat appends minor units of currency to dst as Format writes
// them, without allocating when dst has room.
func AppendFormat(dst []byte, minor int64, currency string) []byte {
	e := Exponent(currency)
	u := uint64(minor)
	if minor < 0 {
		dst = append(dst, '-')
		u = uint64(-minor) // two's complement also right for MinInt64
	}
	var digits [20]byte
	d := strconv.AppendUint(digits[:0], u, 10)
	if e <= 0 {
		return append(dst, d...)
	}
	if len(d) <= e {
		dst = append(dst, '0', '.')
		for range e - len(d) {
			dst = append(dst, '0')
		}
		return append(dst, d...)
	}
	dst = append(dst, d[:len(d)-e]...)
	dst = append(dst, '.')
	return append(dst, d[len(d)-e:]...)
}

// ErrInvalid is returned by Parse for a malformed amount.
var ErrInvalid = errors.New("money: invalid amount")

// Parse reads a decimal amount of currency ("12.5", "12.50", "-3") into minor
// units. More decimals than the currency has, exponents, spaces or a value
// past int64 are errors.
func Parse(s, currency string) (int64, error) {
	e := Exponent(currency)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	whole, frac, hasDot := strings.Cut(s, ".")
	if whole == "" || (hasDot && frac == "") || len(frac) > e || !allDigits(whole) || !allDigits(frac) {
		return 0, ErrInvalid
	}
	frac += strings.Repeat("0", e-len(frac))
	u, err := strconv.ParseUint(whole+frac, 10, 63)
	if err != nil {
		return 0, ErrInvalid
	}
	if neg {
		return -int64(u), nil
	}
	return int64(u), nil
}

// FromWhole converts whole currency units to minor units (sandbox inputs are
// whole units), failing on overflow.
func FromWhole(units int64, currency string) (int64, error) {
	m := int64(1)
	for i := 0; i < Exponent(currency); i++ {
		m *= 10
	}
	r := units * m
	if units != 0 && r/m != units {
		return 0, ErrInvalid
	}
	return r, nil
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Convert converts minor units of currency from into minor units of
// currency to at rate, the amount of to that one unit of from buys (a
// plain positive decimal such as "0.0712"): minor × rate, scaled from
// from's minor unit to to's, rounded half away from zero to to's minor
// unit (commercial rounding: 0.5 of a minor unit and more goes up in
// magnitude, less goes down, for debits and credits alike, so neither the
// bank nor the customer gains on average). Exact: no floats. A malformed
// rate or a result past int64 is ErrInvalid.
func Convert(minor int64, from, to, rate string) (int64, error) {
	r, ok := parseRate(rate)
	if !ok {
		return 0, ErrInvalid
	}
	x := new(big.Rat).Mul(new(big.Rat).SetInt64(minor), r)
	if d := Exponent(to) - Exponent(from); d > 0 {
		x.Mul(x, new(big.Rat).SetInt(pow10(d)))
	} else if d < 0 {
		x.Quo(x, new(big.Rat).SetInt(pow10(-d)))
	}
	return roundHalfAway(x)
}

// parseRate reads a positive plain decimal ("1", "0.0712", "14.04494382").
func parseRate(s string) (*big.Rat, bool) {
	whole, frac, hasDot := strings.Cut(s, ".")
	if whole == "" || (hasDot && frac == "") || !allDigits(whole) || !allDigits(frac) || len(s) > 40 {
		return nil, false
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok || r.Sign() <= 0 {
		return nil, false
	}
	return r, true
}

// roundHalfAway rounds x to an integer, half away from zero.
func roundHalfAway(x *big.Rat) (int64, error) {
	num, den := new(big.Int).Abs(x.Num()), x.Denom()
	q, rem := new(big.Int).QuoRem(num, den, new(big.Int))
	if rem.Lsh(rem, 1).Cmp(den) >= 0 {
		q.Add(q, big.NewInt(1))
	}
	if x.Sign() < 0 {
		q.Neg(q)
	}
	if !q.IsInt64() {
		return 0, ErrInvalid
	}
	return q.Int64(), nil
}

func pow10(n int) *big.Int {
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
}
