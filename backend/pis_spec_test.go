package backend

import (
	"context"
	"strings"
	"testing"

	"github.com/obgw/obgw/backend/pis"
	"github.com/obgw/obgw/backend/sandbox"
	"github.com/obgw/obgw/backend/store"
)

// TestBookedTransactionOmitsEmptyEndToEndIdentification (issue 14, item
// 13): a payment without endToEndIdentification is booked without the
// member (it was served as ""), on the debtor's and the own creditor's
// account; so is one without remittance (it was served as "" and [""]).
func TestBookedTransactionOmitsEmptyEndToEndIdentification(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		for _, tc := range []struct {
			extra   string
			present []string
			absent  []string
		}{
			{`,"remittanceInformationUnstructured":"Husleie"`, []string{"remittanceInformationUnstructured", "remittanceInformationUnstructuredArray"},
				[]string{"endToEndIdentification"}},
			{``, nil, []string{"endToEndIdentification", "remittanceInformationUnstructured", "remittanceInformationUnstructuredArray"}},
			{`,"endToEndIdentification":"e2e-7"`, []string{"endToEndIdentification"}, []string{"remittanceInformationUnstructured"}},
			// (issue 29, 5) a KID is booked structured (in the
			// transaction's details: TestKIDBookedStructured), not as text.
			{`,"remittanceInformationStructured":{"reference":"12345678903","referenceType":"KID"}`, nil,
				[]string{"remittanceInformationUnstructured", "remittanceInformationUnstructuredArray"}},
		} {
			_, kari, _ := h.booked(kariIBAN)
			_, ola, _ := h.booked(olaIBAN)
			if p := h.payAndSettle(pis.DomesticProduct, paymentBody("12.00", kariIBAN, olaIBAN, tc.extra), sandbox.KariNumber); p.Status != pis.StatusSettled {
				t.Fatalf("payment %s", p.Status)
			}
			for iban, before := range map[string]map[string]store.Transaction{kariIBAN: kari, olaIBAN: ola} {
				tx, d := h.newBooking(iban, before)
				for _, k := range tc.absent {
					if _, ok := d[k]; ok {
						t.Errorf("payment with %q, on %s: %s in %s", tc.extra, iban, k, tx.Details)
					}
				}
				for _, k := range tc.present {
					if v, ok := d[k]; !ok || v == "" {
						t.Errorf("payment with %q, on %s: no %s in %s", tc.extra, iban, k, tx.Details)
					}
				}
			}
		}
	})
}

// TestFeeInformationOnlyPost (issue 14, item 13): fee-information is a
// POST resource; another method gets 405 SERVICE_INVALID with Allow, not
// the 404 "no such payment" of a payment named fee-information.
func TestFeeInformationOnlyPost(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		path := "/v1/payments/" + pis.InstantProduct + "/fee-information"
		for _, m := range []string{"GET", "DELETE", "PUT"} {
			status, b, hdr := h.call(tppCall{method: m, path: path})
			if status != 405 || errCode(b) != "SERVICE_INVALID" {
				t.Errorf("%s fee-information: %d %v", m, status, b)
			}
			if m != "PUT" && hdr.Get("Allow") != "POST" {
				t.Errorf("%s fee-information: Allow %q", m, hdr.Get("Allow"))
			}
		}
		if status, b, _ := h.call(tppCall{method: "POST", path: path, body: paymentBody("10.00", kariIBAN, olaIBAN, "")}); status != 200 || b["transactionFees"] == nil {
			t.Fatalf("POST fee-information: %d %v", status, b)
		}
	})
}

// TestMonthsOfExecutionAllTwelve (issue 14, item 13): MonthlyVariable
// with all 12 months is refused with a text naming frequency Monthly, the
// frequency that says it; 11 months are accepted.
func TestMonthsOfExecutionAllTwelve(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		start := h.clk.now().AddDate(0, 0, 1).Format("2006-01-02")
		base := strings.TrimSuffix(paymentBody("5.00", kariIBAN, olaIBAN, ""), "}") + `,"startDate":"` + start + `","frequency":"MonthlyVariable","monthsOfExecution":`
		path := "/v1/periodic-payments/" + pis.DomesticProduct
		status, b, _ := h.call(tppCall{method: "POST", path: path, sid: "m", body: base + `["1","2","3","4","5","6","7","8","9","10","11","12"]}`})
		msgs, _ := b["tppMessages"].([]any)
		if status != 400 || errCode(b) != "FORMAT_ERROR" || len(msgs) != 1 {
			t.Fatalf("12 months: %d %v", status, b)
		}
		m := msgs[0].(map[string]any)
		if m["path"] != "$.monthsOfExecution" || !strings.Contains(m["text"].(string), "send frequency Monthly without monthsOfExecution") {
			t.Fatalf("12 months: %v", m)
		}
		if status, b, _ := h.call(tppCall{method: "POST", path: path, sid: "m", body: base + `["1","2","3","4","5","6","7","8","9","10","11"]}`}); status != 201 {
			t.Fatalf("11 months: %d %v", status, b)
		}
	})
}

// TestKIDBookedStructured (issue 29, 5): a payment's structured remittance
// (a KID) is booked as remittanceInformationStructuredArray, which the
// description prefers on transactions, with its type, on the debtor's
// and the own creditor's transaction details.
func TestKIDBookedStructured(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		_, kari, _ := h.booked(kariIBAN)
		_, ola, _ := h.booked(olaIBAN)
		extra := `,"remittanceInformationStructured":{"reference":"12345678903","referenceType":"KID"}`
		if p := h.payAndSettle(pis.DomesticProduct, paymentBody("12.00", kariIBAN, olaIBAN, extra), sandbox.KariNumber); p.Status != pis.StatusSettled {
			t.Fatalf("payment %s", p.Status)
		}
		for iban, before := range map[string]map[string]store.Transaction{kariIBAN: kari, olaIBAN: ola} {
			tx, _ := h.newBooking(iban, before)
			a, _ := h.st.GetAccountByNumber(context.Background(), testTPP, iban, "")
			full, err := h.st.GetTransaction(context.Background(), a.ID, tx.ID)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(full.Details), `"remittanceInformationStructuredArray":[{"reference":"12345678903","referenceType":"KID"}]`) ||
				strings.Contains(string(full.Details), "remittanceInformationUnstructured") {
				t.Errorf("on %s: %s", iban, full.Details)
			}
		}
	})
}
