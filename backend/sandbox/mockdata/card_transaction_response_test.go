package mockdata

import (
	"strings"
	"testing"
)

func TestCardTransactionsResponse(t *testing.T) {
	twoItems := func() []byte {
		second := cardItem()
		set("cardTransactionId", "ct-0002")(second)
		set("bookingDate", "2026-11-19T09:00:00+01:00")(second)
		set("transactionDate", "2026-11-19T09:00:00+01:00")(second)
		set("transactionAmount", map[string]any{"currency": "JPY", "amount": 2147483647})(second)
		set("originalAmount", map[string]any{"currency": "BHD", "amount": -2147483648})(second)
		return marshal([]any{cardItem(), second})
	}
	tests := []struct {
		name      string
		maskedPan string
		txs       []CardTransaction
		body      []byte // parsed into txs when set
		want      string
		err       string
	}{
		{
			name: "two transactions", maskedPan: "5412xxxxxxxx1234", body: twoItems(),
			want: `{"cardAccount":{"maskedPan":"5412xxxxxxxx1234"},"cardTransactions":{"booked":[` +
				`{"cardTransactionId":"ct-0001","bookingDate":"2026-11-20","transactionDate":"2026-11-20",` +
				`"transactionAmount":{"currency":"NOK","amount":-459},"originalAmount":{"currency":"EUR","amount":-40},"merchantCategoryCode":"5411"},` +
				`{"cardTransactionId":"ct-0002","bookingDate":"2026-11-19","transactionDate":"2026-11-19",` +
				`"transactionAmount":{"currency":"JPY","amount":2147483647},"originalAmount":{"currency":"BHD","amount":-2147483648},"merchantCategoryCode":"5411"}` +
				`],"pending":[]}}`,
		},
		{
			name: "no transactions", maskedPan: "5412xxxxxxxx1234",
			want: `{"cardAccount":{"maskedPan":"5412xxxxxxxx1234"},"cardTransactions":{"booked":[],"pending":[]}}`,
		},
		{
			name: "amount not whole units", maskedPan: "5412xxxxxxxx1234",
			txs: []CardTransaction{{TransactionAmount: Money{"NOK", 150}, OriginalAmount: Money{"NOK", 100}}},
			err: "transactionAmount: 1.50 NOK is not a whole number of units",
		},
		{
			name: "amount past int32", maskedPan: "5412xxxxxxxx1234",
			txs: []CardTransaction{{TransactionAmount: Money{"NOK", 100}, OriginalAmount: Money{"JPY", 1 << 31}}},
			err: "originalAmount: 2147483648 JPY is outside int32",
		},
		{name: "no maskedPan", err: "without a maskedPan"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			txs := tc.txs
			if tc.body != nil {
				var errs []FieldError
				txs, errs = ParseCardTransactions(tc.body, testNow)
				if errs != nil {
					t.Fatal(errs)
				}
			}
			out, err := CardTransactionsResponse(tc.maskedPan, txs)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != tc.want {
				t.Errorf("got  %s\nwant %s", out, tc.want)
			}
		})
	}
}
