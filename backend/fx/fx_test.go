package fx

import (
	"context"
	"errors"
	"testing"
)

// TestSandboxQuotes: the table's rates as they are against NOK, inverse
// and cross rates rounded to RateDecimals, and ErrNoRate off the table.
func TestSandboxQuotes(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct{ source, target, rate string }{
		{"JPY", "NOK", "0.0712"},
		{"EUR", "NOK", "11.75"},
		{"NOK", "EUR", "0.08510638"},
		{"NOK", "JPY", "14.04494382"},
		{"EUR", "SEK", "11.98979592"},
		{"BHD", "NOK", "28.80"},
	} {
		q, err := Sandbox{}.Quote(ctx, tc.source, tc.target, "2026-11-25")
		if err != nil || q.ExchangeRate != tc.rate || q.SourceCurrency != tc.source || q.UnitCurrency != tc.source ||
			q.TargetCurrency != tc.target || q.QuotationDate != "2026-11-25" {
			t.Errorf("%s -> %s: %+v %v, want rate %s", tc.source, tc.target, q, err, tc.rate)
		}
	}
	q, _ := Sandbox{}.Quote(ctx, "JPY", "NOK", "2026-11-25")
	if v, err := q.Convert(-5000); err != nil || v != -35600 {
		t.Errorf("JPY -5000 in NOK: %d %v", v, err)
	}
	for _, src := range []Source{Sandbox{}, None{}} {
		if _, err := src.Quote(ctx, "XOF", "NOK", "2026-11-25"); !errors.Is(err, ErrNoRate) {
			t.Errorf("%T XOF: %v", src, err)
		}
	}
}
