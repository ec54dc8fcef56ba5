package mockdata

import (
	"strings"
	"testing"
	"time"
)

// cardAccountBody is the contract's example.
func cardAccountBody() any {
	return map[string]any{
		"customerNumber": "13039319955", "maskedPan": "1234xxxxxxxx4321", "currency": "NOK",
		"creditLimit": map[string]any{"currency": "NOK", "amount": 1000},
		"balances": []any{map[string]any{
			"balanceAmount": map[string]any{"currency": "NOK", "amount": 1000}, "balanceType": "EXPECTED",
			"referenceDate": "2026-01-01", "lastChangeDateTime": "2026-01-01T10:00:00Z", "lastCommittedTransaction": "ct-17",
		}},
		"cardId": "1", "cardIdVNo": "2", "accountNumber": "123412341234", "expiry": "2028-01-01", "name": "Kari Mastercard",
		"product": "Basic Credit", "status": "ENABLED",
	}
}

func TestParseCardAccount(t *testing.T) {
	type A = CardAccount
	runParseCases(t, cardAccountBody, ParseCardAccount, []parseCase[A]{
		good("contract example", equal(A{
			CustomerNumber: "13039319955", MaskedPAN: "1234xxxxxxxx4321", Currency: "NOK", CreditLimit: Money{"NOK", 100000},
			Balances: []Balance{{Type: "expected", Amount: Money{"NOK", 100000}, ReferenceDate: "2026-01-01",
				LastChangeDateTime: time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC), LastCommittedTransaction: "ct-17"}},
			CardID: "1", CardIDVNo: "2", AccountNumber: "123412341234", Expiry: "2028-01-01", Name: "Kari Mastercard",
			Product: "Basic Credit", Status: "enabled",
		})),
		// Issue 16: contract section 10's card account sends EXPECTED twice.
		good("the same balance twice is one", func(t *testing.T, a A) { equal(1)(t, len(a.Balances)) }, func(v any) {
			m := v.(map[string]any)
			m["balances"] = append(m["balances"].([]any), m["balances"].([]any)[0])
		}),
		bad[A]("the same type with another amount", "$.balances[1].balanceType", "different values", func(v any) {
			m := v.(map[string]any)
			m["balances"] = append(m["balances"].([]any), map[string]any{
				"balanceAmount": map[string]any{"currency": "NOK", "amount": 999}, "balanceType": "expected"})
		}),
		good("only the required fields", equal(A{CustomerNumber: "13039319955", MaskedPAN: "1234xxxxxxxx4321", Currency: "NOK",
			CreditLimit: Money{Currency: "NOK"}, Status: "enabled"}),
			func(v any) {
				m := v.(map[string]any)
				for k := range m {
					if k != "customerNumber" && k != "maskedPan" && k != "currency" {
						delete(m, k)
					}
				}
			}),
		bad[A]("customerNumber missing", "$.customerNumber", "is required", set("customerNumber", remove)),
		bad[A]("maskedPan missing", "$.maskedPan", "is required", set("maskedPan", remove)),
		bad[A]("maskedPan unmasked", "$.maskedPan", "masked card number", set("maskedPan", "1234567812345678")),
		bad[A]("currency missing", "$.currency", "is required", set("currency", remove)),
		bad[A]("currency lower case", "$.currency", "ISO 4217", set("currency", "nok")),
		good("balance type AUTHORISED", func(t *testing.T, a A) { equal("authorised")(t, a.Balances[0].Type) }, set("balances.0.balanceType", "AUTHORISED")),
		good("balance type expected in lower case", func(t *testing.T, a A) { equal("expected")(t, a.Balances[0].Type) }, set("balances.0.balanceType", "expected")),
		bad[A]("balance type closingBooked", "$.balances[0].balanceType", "must be one of expected, authorised (in any case)", set("balances.0.balanceType", "closingBooked")),
		bad[A]("balance amount a string", "$.balances[0].balanceAmount.amount", "must be a number, got string", set("balances.0.balanceAmount.amount", "1000")),
		good("creditLimit absent", func(t *testing.T, a A) { equal(Money{"NOK", 0})(t, a.CreditLimit) }, set("creditLimit", remove)),
		bad[A]("creditLimit negative", "$.creditLimit.amount", "must not be negative", set("creditLimit.amount", -1)),
		bad[A]("creditLimit in another currency", "$.creditLimit.currency", "card account's currency NOK", set("creditLimit.currency", "EUR")),
		bad[A]("creditLimit with fraction", "$.creditLimit.amount", "whole number", set("creditLimit.amount", raw("1000.5"))),
		good("status Blocked", func(t *testing.T, a A) { equal("blocked")(t, a.Status) }, set("status", "Blocked")),
		good("status absent", func(t *testing.T, a A) { equal("enabled")(t, a.Status) }, set("status", remove)),
		bad[A]("status active", "$.status", "must be one of enabled, blocked, deleted", set("status", "active")),
		good("expiry as date-time", func(t *testing.T, a A) { equal("2028-01-31")(t, a.Expiry) }, set("expiry", "2028-01-31T23:59:59+01:00")),
		bad[A]("expiry month only", "$.expiry", "ISO 8601 date", set("expiry", "2028-01")),
		bad[A]("expiry impossible", "$.expiry", "ISO 8601 date", set("expiry", "2028-13-01")),
		bad[A]("name of 71", "$.name", "longer than 70", set("name", strings.Repeat("n", 71))),
		bad[A]("product of 71", "$.product", "longer than 70", set("product", strings.Repeat("p", 71))),
		bad[A]("cardId of 36", "$.cardId", "longer than 35", set("cardId", strings.Repeat("1", 36))),
		bad[A]("cardIdVNo a number", "$.cardIdVNo", "must be a string, got number", set("cardIdVNo", 2)),
		bad[A]("accountNumber of 36", "$.accountNumber", "longer than 35", set("accountNumber", strings.Repeat("1", 36))),
		bad[A]("unknown field", "$.creditLine", "is not a known field", set("creditLine", 0)),
		rawBody[A]("body a string", `"card"`, "$", "must be an object, got string"),
	})
}
