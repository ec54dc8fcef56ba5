package payments

import (
	"strings"
	"testing"
)

// bulkBody returns a valid bulk body of product with two payments.
func bulkBody(product string) map[string]any {
	one, two := paymentBody(product), paymentBody(product)
	for _, p := range []map[string]any{one, two} {
		delete(p, "debtorAccount")
		delete(p, "requestedExecutionDate")
	}
	two["endToEndIdentification"] = "e2e-2"
	return map[string]any{
		"batchBookingPreferred":  true,
		"debtorAccount":          paymentBody(product)["debtorAccount"],
		"requestedExecutionDate": "2026-11-23",
		"payments":               []any{one, two},
	}
}

func TestParseBulk(t *testing.T) {
	type B = Bulk
	payment := Payment{
		Product: ProductDomestic, InstructedAmount: Money{"NOK", 12345},
		DebtorAccount: AccountReference{BBAN: bbanA}, CreditorAccount: AccountReference{IBAN: ibanB},
		CreditorName: "Ola Nordmann", RequestedExecutionDate: "2026-11-23",
		RemittanceInformationUnstructured: "Faktura 42", EndToEndIdentification: "e2e-1",
	}
	second := payment
	second.EndToEndIdentification = "e2e-2"
	many := func(n int) edit {
		return func(v any) {
			ps := make([]any, n)
			for i := range ps {
				ps[i] = bulkBody(ProductDomestic)["payments"].([]any)[0]
			}
			v.(map[string]any)["payments"] = ps
		}
	}
	runParseCases(t, bulkBody, ParseBulk, []parseCase[B]{
		good("two payments", equal(B{
			BatchBookingPreferred: true, DebtorAccount: AccountReference{BBAN: bbanA}, RequestedExecutionDate: "2026-11-23",
			Payments: []Payment{payment, second},
		})),
		good[B]("sepa", nil).in(ProductSEPA),
		good[B]("cross-border", nil).in(ProductCrossBorder),
		// Bulk fields.
		good("no batchBookingPreferred", func(t *testing.T, b B) { equal(false)(t, b.BatchBookingPreferred) },
			set("batchBookingPreferred", remove)),
		bad[B]("batchBookingPreferred as string", "$.batchBookingPreferred", "must be a boolean, got string",
			set("batchBookingPreferred", "true")),
		bad[B]("debtorAccount missing", "$.debtorAccount", "is required", set("debtorAccount", remove)),
		bad[B]("debtorAccount abroad", "$.debtorAccount.iban", "account at this bank",
			set("debtorAccount", map[string]any{"iban": ibanDE})).in(ProductCrossBorder),
		good("no requestedExecutionDate", func(t *testing.T, b B) { equal("")(t, b.Payments[1].RequestedExecutionDate) },
			set("requestedExecutionDate", remove)),
		bad[B]("requestedExecutionDate in the past", "$.requestedExecutionDate", "must not be in the past",
			set("requestedExecutionDate", "2026-01-01")),
		bad[B]("unknown bulk field", "$.paymnets", "did you mean payments?", set("paymnets", []any{})),
		// payments.
		good("100 payments", func(t *testing.T, b B) { equal(100)(t, len(b.Payments)) }, many(100)),
		bad[B]("101 payments", "$.payments", "holds 101 payments; send 1 to 100", many(101)),
		bad[B]("no payments", "$.payments", "holds 0 payments", many(0)),
		bad[B]("payments missing", "$.payments", "is required", set("payments", remove)),
		bad[B]("payment not an object", "$.payments[1]", "must be an object, got array", set("payments.1", []any{})),
		bad[B]("payment rule", "$.payments[1].instructedAmount.amount", "more than 2 decimals",
			set("payments.1.instructedAmount.amount", "1.001")),
		bad[B]("payment nested rule", "$.payments[0].remittanceInformationStructuredArray[0].reference", "valid KID",
			set("payments.0."+fieldUnstructured, remove), set("payments.0."+fieldStructuredArray, []any{kidRef("1", "")})),
		bad[B]("payment with its own debtorAccount", "$.payments[1].debtorAccount", "given once for the whole bulk",
			set("payments.1.debtorAccount", map[string]any{"bban": bbanA})),
		bad[B]("payment with its own date", "$.payments[0].requestedExecutionDate", "given once for the whole bulk",
			set("payments.0.requestedExecutionDate", "2026-11-23")),
		bad[B]("payment to the debtor account", "$.payments[1].creditorAccount", "must differ from debtorAccount",
			set("payments.1.creditorAccount", map[string]any{"iban": ibanA})),
		bad[B]("payment product currency", "$.payments[0].instructedAmount.currency", "must be EUR",
			set("payments.0.instructedAmount.currency", "NOK")).in(ProductSEPA),
		good[B]("cross-border in one currency", nil, set("payments.1.instructedAmount.currency", "GBP")).in(ProductCrossBorder),
		bad[B]("cross-border in two currencies", "$.payments[1].instructedAmount.currency", "a bulk is in one currency",
			set("payments.1.instructedAmount.currency", "USD")).in(ProductCrossBorder),
		rawBody[B]("too large", `{"x":"`+strings.Repeat("a", MaxBulkBodyBytes)+`"}`, "$", "larger than 1024 KiB"),
	})
}

// TestParseBulkErrorsInEveryPayment: each payment's errors are reported
// under its own index, and a refused debtorAccount is not blamed again on
// every payment.
func TestParseBulkErrorsInEveryPayment(t *testing.T) {
	b := bulkBody(ProductDomestic)
	set("debtorAccount.bban", "1")(b)
	set("payments.0.creditorName", remove)(b)
	set("payments.1.creditorName", remove)(b)
	_, errs := ParseBulk(ProductDomestic, marshal(b), testToday)
	if got := errorPaths(errs); got != "$.debtorAccount.bban $.payments[0].creditorName $.payments[1].creditorName" {
		t.Fatalf("got %s", got)
	}
}
