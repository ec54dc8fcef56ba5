package backend

import (
	"bytes"
	"strings"
	"testing"

	"github.com/obgw/obgw/backend/pis"
	"github.com/obgw/obgw/backend/sandbox"
	"github.com/obgw/obgw/tppcontext"
)

// TestHold (issue 14, item 10; release 1.21.18): a payment to a creditor
// named HOLD is held at SCA instead of ACTC and no batch run executes it;
// the bank's sandbox operations release it (ACTC, then settled), hold an
// authorised one, stop a held one (CANC), and refuse every other status.
// The harness's transitionGuard fails any move the table does not list.
// Production has none of these operations.
func TestHold(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		before := h.balance(kariIBAN)
		body := strings.Replace(paymentBody("42.00", kariIBAN, olaIBAN, ""), "Mottaker AS", "Hold", 1)
		_, b, _ := h.call(tppCall{method: "POST", path: "/v1/payments/" + pis.DomesticProduct, sid: "h1", body: body})
		id, _ := b["paymentId"].(string)
		if q := h.authorise(scaLink(b), sandbox.KariNumber); q.Get("psu-id") == "" {
			t.Fatalf("authorise: %v", q)
		}
		self := "/v1/payments/" + pis.DomesticProduct + "/" + id
		if _, b, _ := h.call(tppCall{method: "GET", path: self + "/status"}); b["transactionStatus"] != "HOLD" {
			t.Fatalf("after SCA: %v", b)
		}
		h.call(tppCall{method: "POST", path: "/v1/sandbox/payment-batch-runs"})
		h.wantStatus(id, pis.StatusHold)
		if h.balance(kariIBAN) != before {
			t.Fatal("a held payment was executed")
		}
		op := func(tpp, id, what string) (int, map[string]any) {
			status, b, _ := h.call(tppCall{tpp: tpp, method: "POST", path: "/v1/sandbox/payments/" + id + "/" + what})
			return status, b
		}
		if status, b := op("PSDNO-FSA-111111111", id, "release"); status != 403 || errCode(b) != "RESOURCE_UNKNOWN" {
			t.Fatalf("another TPP releases: %d %v", status, b)
		}
		if status, b := op("", "enc!!nosuchpaymentxxxxxxxxxxx", "release"); status != 404 || errCode(b) != "RESOURCE_UNKNOWN" {
			t.Fatalf("unknown payment: %d %v", status, b)
		}
		if status, b := op("", id, "release"); status != 200 || b["transactionStatus"] != "ACTC" {
			t.Fatalf("release: %d %v", status, b)
		}
		if status, b := op("", id, "release"); status != 409 || errCode(b) != "STATUS_INVALID" {
			t.Fatalf("release twice: %d %v", status, b)
		}
		h.call(tppCall{method: "POST", path: "/v1/sandbox/payment-batch-runs"})
		h.wantStatus(id, pis.StatusSettled)
		if status, b := op("", id, "hold"); status != 409 || errCode(b) != "STATUS_INVALID" {
			t.Fatalf("hold a settled payment: %d %v", status, b)
		}

		// The bank holds an authorised payment, then stops it.
		id2, _ := h.authorisedPayment("", pis.StatusAccepted)
		if status, b := op("", id2, "stop"); status != 409 || errCode(b) != "STATUS_INVALID" {
			t.Fatalf("stop a payment not held: %d %v", status, b)
		}
		if status, b := op("", id2, "hold"); status != 200 || b["transactionStatus"] != "HOLD" {
			t.Fatalf("hold: %d %v", status, b)
		}
		if status, b := op("", id2, "stop"); status != 200 || b["transactionStatus"] != "CANC" {
			t.Fatalf("stop: %d %v", status, b)
		}
		h.wantStatus(id2, pis.StatusCancelled)

		// A held future-dated payment is released to PDNG.
		day := h.clk.now().AddDate(0, 0, 7).Format("2006-01-02")
		id3, _ := h.authorisedPayment(day, pis.StatusPending)
		op("", id3, "hold")
		if status, b := op("", id3, "release"); status != 200 || b["transactionStatus"] != "PDNG" {
			t.Fatalf("release before the date: %d %v", status, b)
		}

		// A held instant payment executes when released.
		_, b, _ = h.call(tppCall{method: "POST", path: "/v1/payments/" + pis.InstantProduct, sid: "h2",
			body: strings.Replace(paymentBody("10.00", kariIBAN, olaIBAN, ""), "Mottaker AS", "HOLD", 1)})
		id4, _ := b["paymentId"].(string)
		h.authorise(scaLink(b), sandbox.KariNumber)
		h.wantStatus(id4, pis.StatusHold)
		if status, b := op("", id4, "release"); status != 200 || b["transactionStatus"] != "ACSC" || b["fundsAvailable"] != true {
			t.Fatalf("release instant: %d %v", status, b)
		}

		// Production has none of these operations.
		ver, _ := tppcontext.NewVerifier(bytes.Repeat([]byte{9}, 32))
		prod := newTestServer(t, New(Config{Store: transitionGuard{Store: h.st, t: t}, Tokens: ver, Now: h.clk.now}))
		defer prod.Close()
		h.srv = prod
		for _, what := range []string{"hold", "release", "stop"} {
			if status, b := op("", id3, what); status != 404 || errCode(b) != "RESOURCE_UNKNOWN" {
				t.Fatalf("%s in production: %d %v", what, status, b)
			}
		}
		h.wantStatus(id3, pis.StatusPending)
	})
}
