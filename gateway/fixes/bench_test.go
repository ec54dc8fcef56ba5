package fixes

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// transactionPage builds a backend listing of n booked transactions in the
// newest shape, with the members and order the backend writes.
func transactionPage(n int, card bool) []byte {
	var b strings.Builder
	if card {
		b.WriteString(`{"cardAccount":{"maskedPan":"525412******3241"},"cardTransactions":{"_links":{"account":{"href":"/v1/card-accounts/enc!!Q0FSRF8x","verbs":["GET"]}},"booked":[`)
	} else {
		b.WriteString(`{"account":{"iban":"NO7809232911044","bban":"09232911044","currency":"NOK"},"transactions":{"_links":{"account":{"href":"/v1/accounts/enc!!Qk9KXzAxMjM0NTY3ODk","verbs":["GET"]}},"booked":[`)
	}
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		if card {
			fmt.Fprintf(&b, `{"cardTransactionId":"enc!!Q1RYXzAx%06d","bookingDate":"2026-11-20","transactionAmount":{"currency":"NOK","amount":"-%d.42"},"_links":{"transactionDetails":{"href":"/v1/card-accounts/enc!!Q0FSRF8x/transactions/enc!!Q1RYXzAx%06d","verbs":["GET"]}},"cardAcceptorAddress":{"city":"Stockholm","country":"SE"},"cardAcceptorId":"ACQ-IKEA","invoiced":true,"maskedPan":"525412******3241","merchantCategoryCode":"5712","originalAmount":{"currency":"SEK","amount":"-%d.10"},"proprietaryBankTransactionCode":"PURCHASE","transactionDate":"2026-11-18","transactionDetails":"IKEA Kungens Kurva"}`, i, 1000+i, i, 900+i)
		} else {
			fmt.Fprintf(&b, `{"transactionId":"enc!!VFhfMDAx%06d","bookingDate":"2026-11-20","valueDate":"2026-11-20","transactionAmount":{"currency":"NOK","amount":"-%d.00"},"_links":{"transactionDetails":{"href":"/v1/accounts/enc!!Qk9KXzAxMjM0NTY3ODk/transactions/enc!!VFhfMDAx%06d","verbs":["GET"]}},"additionalInformationProprietary1":"KID 10007919","creditorName":"Hafslund Strøm AS","remittanceInformationStructuredArray":[{"reference":"100079194","referenceType":"SCOR"}],"remittanceInformationUnstructured":"Strøm november","remittanceInformationUnstructuredArray":["Strøm november"]}`, i, 1000+i, i)
		}
	}
	b.WriteString(`],"pending":[]}}`)
	return []byte(b.String())
}

func BenchmarkRewrite(b *testing.B) {
	r := defaultRegistry(b)
	accounts := readBody(b, "accounts.json")
	for _, bc := range []struct {
		name   string
		body   []byte
		legacy Set
	}{
		{"transactions-200/all-legacy", transactionPage(200, false), allFixes},
		{"transactions-200/amount", transactionPage(200, false), bitAmountAsString},
		{"transactions-200/longer-names-only", transactionPage(200, false), bitLongerNames},
		{"card-transactions-200/all-legacy", transactionPage(200, true), allFixes},
		{"card-transactions-200/card-switch", transactionPage(200, true), bitCardAccountSwitchAmounts},
		{"accounts/all-legacy", accounts, allFixes},
		{"card-transactions-200/all-in-effect", transactionPage(200, true), 0},
	} {
		b.Run(bc.name, func(b *testing.B) {
			if _, err := r.Rewrite(bc.body, allFixes&^bc.legacy); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(bc.body)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := r.Rewrite(bc.body, allFixes&^bc.legacy); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkParseHeader(b *testing.B) {
	for _, bc := range []struct {
		name   string
		values []string
	}{
		{"absent", nil},
		{"two", []string{"longer-names, amount-as-string"}},
		{"unknown-only", []string{"shorter-names"}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				ParseHeader(bc.values)
			}
		})
	}
}

func BenchmarkInEffect(b *testing.B) {
	r := defaultRegistry(b)
	requested := []string{LongerNames, AmountAsString}
	now := time.Date(2024, time.October, 15, 0, 0, 0, 0, time.UTC)
	b.ReportAllocs()
	for b.Loop() {
		if s := r.InEffect(requested, now); s.String() == "" {
			b.Fatal("none in effect")
		}
	}
}
