package mockdata

import (
	"strings"
	"testing"
	"time"
)

func TestParseBalances(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	got, errs := ParseBalances([]byte(`{"balances":[{"balanceType":"EXPECTED","balanceAmount":{"currency":"NOK","amount":18000}}]}`), true, now)
	if len(errs) > 0 || len(got) != 1 || got[0].Type != "expected" || got[0].Amount.Minor != 1800000 {
		t.Fatalf("%+v %v", got, errs)
	}
	for body, want := range map[string]string{
		`{}`: "$.balances",
		`{"balances":[{"balanceType":"closingBooked","balanceAmount":{"currency":"NOK","amount":1}}]}`: "$.balances[0].balanceType",
		`{"balances":[{"balanceType":"expected","balanceAmount":{"currency":"NOK","amount":1.5}}]}`:    "$.balances[0].balanceAmount.amount",
		`{"balances":[],"x":1}`: "$.x",
	} {
		_, errs := ParseBalances([]byte(body), true, now)
		found := false
		for _, e := range errs {
			found = found || strings.HasPrefix(e.Path, want)
		}
		if !found {
			t.Errorf("%s: errors %v lack %s", body, errs, want)
		}
	}
	// Accounts also take the Berlin Group types.
	if _, errs := ParseBalances([]byte(`{"balances":[{"balanceType":"closingBooked","balanceAmount":{"currency":"NOK","amount":1}}]}`), false, now); len(errs) > 0 {
		t.Fatal(errs)
	}
}
