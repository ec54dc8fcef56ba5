package fx

import (
	"context"
	"math/big"
	"strings"
)

// SandboxRates is the sandbox's fixed rate table: NOK per one unit of
// each currency. The README lists it; tests depend on it.
var SandboxRates = map[string]string{
	"NOK": "1",
	"EUR": "11.75",
	"USD": "10.85",
	"GBP": "13.90",
	"SEK": "0.98",
	"DKK": "1.575",
	"ISK": "0.0785",
	"CHF": "12.40",
	"PLN": "2.72",
	"JPY": "0.0712",
	"CNY": "1.50",
	"AUD": "7.05",
	"CAD": "7.80",
	"BHD": "28.80",
	"KWD": "35.40",
}

// RateDecimals is the precision of a sandbox rate that is not in the
// table as is (an inverse such as NOK to EUR, or a cross rate such as EUR
// to SEK through NOK): rounded half up to this many decimals, and that
// rounded rate is the one applied and reported.
const RateDecimals = 8

// Sandbox quotes from SandboxRates: source into target at
// NOK(source) / NOK(target), the same every day; quotationDate is the
// day asked for. A currency not in the table is ErrNoRate.
type Sandbox struct{}

// Quote implements Source.
func (Sandbox) Quote(_ context.Context, source, target, day string) (Quote, error) {
	s, ok1 := SandboxRates[source]
	t, ok2 := SandboxRates[target]
	if !ok1 || !ok2 {
		return Quote{}, noRate(source, target)
	}
	var rate string
	if t == "1" {
		rate = s // exactly as in the table
	} else {
		rs, _ := new(big.Rat).SetString(s)
		rt, _ := new(big.Rat).SetString(t)
		rate = decimal(new(big.Rat).Quo(rs, rt))
	}
	return Quote{SourceCurrency: source, ExchangeRate: rate, UnitCurrency: source, TargetCurrency: target, QuotationDate: day}, nil
}

// decimal writes a positive r rounded half up to RateDecimals decimals,
// without trailing zeros.
func decimal(r *big.Rat) string {
	// FloatString rounds half away from zero.
	s := r.FloatString(RateDecimals)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}
