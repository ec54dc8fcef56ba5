package mockdata

import (
	"strings"
	"testing"
)

// accountTransactionsBody is the contract's example shape, filled in.
func accountTransactionsBody() any {
	return []any{map[string]any{
		"amount": 1500, "currency": "NOK", "valueDate": "2026-11-20", "bookingDate": "2026-11-20",
		"remittanceInformationUnstructured": "Faktura 1042", "creditorId": "NO-910000001", "creditorName": "Fjordfisk AS",
		"creditorAccount": map[string]any{"iban": "NO9386011117947", "bban": "86011117947"}, "ultimateCreditor": "Havmat AS",
		"debtorName": "Kari Nordmann", "debtorAccount": map[string]any{"bban": "12031010010"}, "ultimateDebtor": "Kari Nordmann",
		"purposeCode": "GDDS", "bankTransactionCode": "PMNT",
	}}
}

func TestParseAccountTransactions(t *testing.T) {
	type L = []AccountTransaction
	first := func(check func(*testing.T, AccountTransaction)) func(*testing.T, L) {
		return func(t *testing.T, l L) {
			t.Helper()
			if len(l) != 1 {
				t.Fatalf("got %d transactions", len(l))
			}
			check(t, l[0])
		}
	}
	runParseCases(t, accountTransactionsBody, ParseAccountTransactions, []parseCase[L]{
		good("contract example", equal(L{{
			Amount: Money{"NOK", 150000}, BookingDate: "2026-11-20", ValueDate: "2026-11-20",
			RemittanceInformationUnstructured: "Faktura 1042", CreditorID: "NO-910000001", CreditorName: "Fjordfisk AS",
			CreditorAccount: &AccountReference{IBAN: "NO9386011117947", BBAN: "86011117947"}, UltimateCreditor: "Havmat AS",
			DebtorName: "Kari Nordmann", DebtorAccount: &AccountReference{BBAN: "12031010010"}, UltimateDebtor: "Kari Nordmann",
			PurposeCode: "GDDS", BankTransactionCode: "PMNT",
		}})),
		rawBody[L]("empty array", `[]`, "$", "holds 0 account transactions; send 1 to 1000"),
		rawBody[L]("body an object", `{}`, "$", "must be an array of account transactions, got object"),
		bad[L]("amount missing", "$[0].amount", "is required", set("0.amount", remove)),
		good("amount negative", first(func(t *testing.T, tx AccountTransaction) { equal(Money{"NOK", -150000})(t, tx.Amount) }), set("0.amount", -1500)),
		bad[L]("amount with fraction", "$[0].amount", "whole number", set("0.amount", raw("15.00"))),
		bad[L]("amount a string", "$[0].amount", "must be a number, got string", set("0.amount", "1500")),
		bad[L]("amount past int32", "$[0].amount", "int32", set("0.amount", raw("2147483648"))),
		bad[L]("currency missing", "$[0].currency", "is required", set("0.currency", remove)),
		bad[L]("currency unknown", "$[0].currency", "ISO 4217", set("0.currency", "NKR")),
		bad[L]("bookingDate missing", "$[0].bookingDate", "is required", set("0.bookingDate", remove)),
		bad[L]("bookingDate in the future", "$[0].bookingDate", "must be before the current time", set("0.bookingDate", "2026-11-22")),
		bad[L]("valueDate in the future", "$[0].valueDate", "must be before the current time", set("0.valueDate", "2026-12-01")),
		good("valueDate absent: the booking date", first(func(t *testing.T, tx AccountTransaction) { equal("2026-11-20")(t, tx.ValueDate) }),
			set("0.valueDate", remove)),
		good("valueDate before the booking date", first(func(t *testing.T, tx AccountTransaction) { equal("2026-11-18")(t, tx.ValueDate) }),
			set("0.valueDate", "2026-11-18")),
		bad[L]("valueDate not ISO", "$[0].valueDate", "ISO 8601", set("0.valueDate", "20/11/2026")),
		good[L]("remittance of 140", nil, set("0.remittanceInformationUnstructured", strings.Repeat("r", 140))),
		bad[L]("remittance of 141", "$[0].remittanceInformationUnstructured", "longer than 140", set("0.remittanceInformationUnstructured", strings.Repeat("r", 141))),
		bad[L]("creditorId of 36", "$[0].creditorId", "longer than 35", set("0.creditorId", strings.Repeat("c", 36))),
		bad[L]("creditorName of 71", "$[0].creditorName", "longer than 70", set("0.creditorName", strings.Repeat("c", 71))),
		bad[L]("ultimateCreditor of 71", "$[0].ultimateCreditor", "longer than 70", set("0.ultimateCreditor", strings.Repeat("c", 71))),
		bad[L]("debtorName of 71", "$[0].debtorName", "longer than 70", set("0.debtorName", strings.Repeat("d", 71))),
		bad[L]("ultimateDebtor of 71", "$[0].ultimateDebtor", "longer than 70", set("0.ultimateDebtor", strings.Repeat("d", 71))),
		good[L]("foreign creditor IBAN", nil, set("0.creditorAccount", map[string]any{"iban": "DE89370400440532013000"})),
		good("no accounts", first(func(t *testing.T, tx AccountTransaction) {
			equal(true)(t, tx.CreditorAccount == nil && tx.DebtorAccount == nil)
		}), set("0.creditorAccount", remove), set("0.debtorAccount", nil)),
		bad[L]("creditorAccount empty", "$[0].creditorAccount", "must hold an iban or a bban", set("0.creditorAccount", map[string]any{})),
		bad[L]("creditorAccount iban invalid", "$[0].creditorAccount.iban", "valid check digits", set("0.creditorAccount.iban", "NO9386011117948")),
		bad[L]("creditorAccount iban and bban differ", "$[0].creditorAccount.iban", "names another account", set("0.creditorAccount.bban", "12031010010")),
		good[L]("debtorAccount bban not MOD11", nil, set("0.debtorAccount.bban", "12031010011")),
		bad[L]("debtorAccount bban of 12 digits", "$[0].debtorAccount.bban", "11-digit", set("0.debtorAccount.bban", "120310100111")),
		bad[L]("debtorAccount with a pan", "$[0].debtorAccount.pan", "is not a known field", set("0.debtorAccount.pan", "1234")),
		bad[L]("debtorAccount currency invalid", "$[0].debtorAccount.currency", "ISO 4217", set("0.debtorAccount.currency", "kr")),
		good("purposeCode free text", first(func(t *testing.T, tx AccountTransaction) { equal("Varekjøp")(t, tx.PurposeCode) }),
			set("0.purposeCode", "Varekjøp")),
		bad[L]("purposeCode of 36", "$[0].purposeCode", "longer than 35", set("0.purposeCode", strings.Repeat("G", 36))),
		bad[L]("bankTransactionCode of 36", "$[0].bankTransactionCode", "longer than 35", set("0.bankTransactionCode", strings.Repeat("P", 36))),
		bad[L]("unknown field", "$[0].transactionId", "is not a known field", set("0.transactionId", "t1")),
		rawBody[L]("1001 transactions", "["+strings.Repeat(`{},`, 1000)+"{}]", "$", "holds 1001 account transactions; send 1 to 1000"),
	})
}
