package payments

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/obgw/obgw/backend/bankaccount"
	"github.com/obgw/obgw/backend/civildate"
	"github.com/obgw/obgw/backend/codelists"
	"github.com/obgw/obgw/backend/money"
)

// checkOutcome asserts that a parser returned a value or errors, never
// both nor neither, and that the errors are well-formed.
func checkOutcome(t *testing.T, accepted bool, errs []FieldError) {
	t.Helper()
	if accepted == (len(errs) > 0) {
		t.Fatalf("accepted %v with %d errors", accepted, len(errs))
	}
	checkFieldErrors(t, errs)
}

// checkAccepted asserts the rules of the package documentation on a
// payment a parser accepted.
func checkAccepted(t *testing.T, p Payment, kind paymentKind) {
	t.Helper()
	fail := func(what string) { t.Helper(); t.Fatalf("accepted %s: %+v", what, p) }
	a := p.InstructedAmount
	if !KnownProduct(p.Product) || !codelists.ValidCurrency(a.Currency) || a.Minor <= 0 || a.Minor > maxMinor(a.Currency) {
		fail("a bad product or amount")
	}
	if want := productCurrency(p.Product); want != "" && a.Currency != want {
		fail("a currency of another product")
	}
	if back, err := money.Parse(money.Format(a.Minor, a.Currency), a.Currency); err != nil || back != a.Minor {
		fail("an amount that does not round-trip")
	}
	d, c := p.DebtorAccount, p.CreditorAccount
	if d.IBAN != "" && !strings.HasPrefix(d.IBAN, "NO") || d.IBAN == "" && !bankaccount.ValidBBAN(d.BBAN) {
		fail("a debtor account not at this bank")
	}
	if c.IBAN == "" && c.BBAN == "" || c.IBAN != "" && !bankaccount.ValidIBAN(c.IBAN) || accountKey(d) == accountKey(c) {
		fail("a bad creditor account")
	}
	if domestic(p.Product) && (c.IBAN != "" && c.IBAN[:2] != "NO" || c.IBAN == "" && !bankaccount.ValidBBAN(c.BBAN)) {
		fail("a foreign creditor in a domestic payment")
	}
	if p.Product == ProductSEPA && (d.IBAN == "" || c.IBAN == "") {
		fail("a SEPA payment without IBANs")
	}
	if p.Product == ProductCrossBorder && (p.CreditorAddress == nil || c.IBAN == "" && p.CreditorAgent == "") {
		fail("a cross-border payment without address or agent")
	}
	if strings.TrimLeft(p.CreditorName, " ") == "" || utf8.RuneCountInString(p.CreditorName) > maxNameRunes {
		fail("a bad creditor name")
	}
	if p.CreditorAgent != "" && !validBIC(p.CreditorAgent) || !validEndToEnd(p.EndToEndIdentification) {
		fail("a bad agent or end-to-end id")
	}
	set := 0
	for _, b := range []bool{p.RemittanceInformationUnstructured != "", p.RemittanceInformationStructured != nil,
		p.RemittanceInformationStructuredArray != nil} {
		if b {
			set++
		}
	}
	if set > 1 || utf8.RuneCountInString(p.RemittanceInformationUnstructured) > maxRemitRunes {
		fail("bad remittance information")
	}
	refs := p.RemittanceInformationStructuredArray
	if p.RemittanceInformationStructured != nil {
		refs = append(refs, *p.RemittanceInformationStructured)
	}
	for _, r := range refs {
		kid := r.ReferenceType == "KID" || r.ReferenceType == "SCOR" || domestic(p.Product)
		if kid && !ValidKID(r.Reference) && !(r.ReferenceType == "SCOR" && !domestic(p.Product) && validCreditorReference(r.Reference)) {
			fail("a structured reference that is not a valid KID")
		}
	}
	if e := p.RequestedExecutionDate; e != "" && (!civildate.Valid(e) || e < testToday || e > oneYearAfterString(testToday)) {
		fail("a bad execution date")
	}
	if kind == periodicPayment && p.RequestedExecutionDate != "" {
		fail("a periodic payment with requestedExecutionDate")
	}
}

func FuzzParsePayment(f *testing.F) {
	f.Fuzz(func(t *testing.T, product string, body []byte) {
		p, errs := ParsePayment(product, body, testToday)
		checkOutcome(t, p.Product != "", errs)
		if errs == nil {
			checkAccepted(t, p, singlePayment)
		}
	})
}

func FuzzParsePeriodic(f *testing.F) {
	f.Fuzz(func(t *testing.T, product string, body []byte) {
		pp, errs := ParsePeriodic(product, body, testToday)
		checkOutcome(t, pp.Product != "", errs)
		if errs != nil {
			return
		}
		checkAccepted(t, pp.Payment, periodicPayment)
		if pp.StartDate < testToday || pp.EndDate != "" && pp.EndDate < pp.StartDate || !validFrequency(pp.Frequency) ||
			(pp.Frequency == frequencyMonthlyVariable) != (pp.MonthsOfExecution != nil) {
			t.Fatalf("accepted schedule %+v", pp)
		}
		seen := map[string]bool{}
		for _, m := range pp.MonthsOfExecution {
			if seen[m] || !validNumber(m, 12) {
				t.Fatalf("accepted months %v", pp.MonthsOfExecution)
			}
			seen[m] = true
		}
	})
}

func FuzzParseBulk(f *testing.F) {
	f.Fuzz(func(t *testing.T, product string, body []byte) {
		b, errs := ParseBulk(product, body, testToday)
		checkOutcome(t, b.Payments != nil, errs)
		if len(b.Payments) > MaxBulkPayments {
			t.Fatalf("accepted %d payments", len(b.Payments))
		}
		for _, p := range b.Payments {
			checkAccepted(t, p, bulkPayment)
			if p.InstructedAmount.Currency != b.Payments[0].InstructedAmount.Currency {
				t.Fatalf("accepted a bulk in two currencies: %+v", b)
			}
			if p.DebtorAccount != b.DebtorAccount || p.RequestedExecutionDate != b.RequestedExecutionDate {
				t.Fatalf("payment %+v does not carry the bulk's debtor and date", p)
			}
		}
	})
}

func FuzzValidKID(f *testing.F) {
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := ValidKID(s), referenceKID(s); got != want {
			t.Fatalf("ValidKID(%q) = %v, reference says %v", s, got, want)
		}
		// Any digit string of 1 to 24 digits completed with its MOD10
		// check digit is a KID.
		if allDigits(s) && len(s) <= 24 {
			if kid := s + string(rune('0'+mod10Check(s))); !ValidKID(kid) {
				t.Fatalf("%q with its MOD10 check digit refused", kid)
			}
		}
	})
}
