package fx

import (
	"context"
	"errors"

	"github.com/obgw/obgw/backend/money"
)

// Quote is the rate at which the bank converts amounts of SourceCurrency
// into TargetCurrency: one unit of UnitCurrency (always SourceCurrency
// here) is ExchangeRate units of TargetCurrency, as quoted on
// QuotationDate. The JSON is the Berlin Group v1.3 reportExchangeRate.
type Quote struct {
	SourceCurrency string `json:"sourceCurrency"`
	// ExchangeRate is a plain positive decimal ("0.0712"): exactly the
	// rate applied, so a TPP can recompute the converted amount.
	ExchangeRate   string `json:"exchangeRate"`
	UnitCurrency   string `json:"unitCurrency"`
	TargetCurrency string `json:"targetCurrency"`
	// QuotationDate is the bank's date of the quote (YYYY-MM-DD).
	QuotationDate string `json:"quotationDate"`
}

// Convert converts minor units of q.SourceCurrency into minor units of
// q.TargetCurrency at q's rate (money.Convert: half away from zero).
func (q Quote) Convert(minor int64) (int64, error) {
	return money.Convert(minor, q.SourceCurrency, q.TargetCurrency, q.ExchangeRate)
}

// ErrNoRate is returned (wrapped) by a Source that does not exchange a
// pair of currencies: a payment needing it cannot be executed. Other
// errors of a Source are passing failures (its service is down).
var ErrNoRate = errors.New("no exchange rate")

// Source quotes exchange rates.
type Source interface {
	// Quote returns the rate at which the bank converts source into target
	// on day (the bank's date, YYYY-MM-DD). source and target differ.
	Quote(ctx context.Context, source, target, day string) (Quote, error)
}

// None is a Source without rates: every quote is ErrNoRate. A production
// deployment without a rate source executes payments in the debtor
// account's currency only.
type None struct{}

// Quote implements Source.
func (None) Quote(_ context.Context, source, target, _ string) (Quote, error) {
	return Quote{}, noRate(source, target)
}

func noRate(source, target string) error {
	return &pairError{source: source, target: target}
}

type pairError struct{ source, target string }

func (e *pairError) Error() string {
	return "fx: no exchange rate from " + e.source + " to " + e.target
}

func (e *pairError) Unwrap() error { return ErrNoRate }
