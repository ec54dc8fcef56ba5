package payments

import (
	"strings"
	"testing"
)

// benchPaymentBody is a typical domestic payment with a KID, as a TPP
// sends it.
var benchPaymentBody = func() []byte {
	b := paymentBody(ProductDomestic)
	delete(b, fieldUnstructured)
	b[fieldStructuredArray] = []any{kidRef(kidMOD10, "SCOR")}
	return marshal(b)
}()

func BenchmarkParsePayment(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(benchPaymentBody)))
	for b.Loop() {
		if _, errs := ParsePayment(ProductDomestic, benchPaymentBody, testToday); errs != nil {
			b.Fatal(errs)
		}
	}
}

func BenchmarkParsePaymentInvalid(b *testing.B) {
	body := []byte(strings.Replace(string(benchPaymentBody), kidMOD10, "79927398710", 1))
	b.ReportAllocs()
	for b.Loop() {
		if _, errs := ParsePayment(ProductDomestic, body, testToday); len(errs) != 1 {
			b.Fatal(errs)
		}
	}
}

func BenchmarkParseBulk100(b *testing.B) {
	body := bulkBody(ProductDomestic)
	one := body["payments"].([]any)[0]
	ps := make([]any, MaxBulkPayments)
	for i := range ps {
		ps[i] = one
	}
	body["payments"] = ps
	raw := marshal(body)
	b.ReportAllocs()
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		if _, errs := ParseBulk(ProductDomestic, raw, testToday); errs != nil {
			b.Fatal(errs)
		}
	}
}

func BenchmarkValidKID(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if !ValidKID("1234567890123456789012341") {
			b.Fatal("refused")
		}
	}
}
