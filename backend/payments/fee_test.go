package payments

import "testing"

func TestFee(t *testing.T) {
	for _, tc := range []struct {
		product string
		minor   int64
		want    Money
	}{
		{ProductInstant, 1, Money{"NOK", 100}},
		{ProductInstant, 99_999_99, Money{"NOK", 100}},
		{ProductInstant, 100_000_00, Money{"NOK", 500}},
		{ProductInstant, 99_999_999_999_999, Money{"NOK", 500}},
		{ProductDomestic, 100_000_00, Money{"NOK", 0}},
		{ProductSEPA, 5, Money{"NOK", 0}},
	} {
		p := Payment{Product: tc.product, InstructedAmount: Money{"NOK", tc.minor}}
		if got := Fee(p); got != tc.want {
			t.Errorf("Fee(%s, %d) = %+v, want %+v", tc.product, tc.minor, got, tc.want)
		}
	}
}

// TestFeeOfParsedPayment: the fee-information route parses the body and
// prices it.
func TestFeeOfParsedPayment(t *testing.T) {
	b := paymentBody(ProductInstant)
	set("instructedAmount.amount", "100000.00")(b)
	p, errs := ParsePayment(ProductInstant, marshal(b), testToday)
	if errs != nil || Fee(p) != (Money{"NOK", 500}) {
		t.Fatalf("%v %+v", errs, Fee(p))
	}
}
