package resource

import "github.com/obgw/obgw/backend/money"

// Amount is a Berlin Group amount: currency and a decimal string with the
// currency's decimals (the amount-as-string shape; the gateway rewrites it
// for TPPs that have not opted in).
type Amount struct {
	Currency string `json:"currency"`
	Amount   string `json:"amount"`
}

// AmountOf is the Amount of minor units of currency.
func AmountOf(minor int64, currency string) Amount {
	return Amount{Currency: currency, Amount: money.Format(minor, currency)}
}
