package backend

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/obgw/obgw/backend/payments"
	"github.com/obgw/obgw/backend/pis"
	"github.com/obgw/obgw/backend/sandbox"
)

// cancelOnPage walks a cancellation flow's SCA page as customer number up
// to the confirmation, checks it shows the payment, submits step (confirm
// or cancel) and returns the TPP redirect's query.
func (h *harness) cancelOnPage(href, number, step string) url.Values {
	h.t.Helper()
	p := h.browser()
	page := p.open(href)
	page = body(p.submit(href, page, url.Values{"step": {"identify"}, "customerNumber": {number}}))
	page = body(p.submit(href, page, url.Values{"step": {"context"}, "context": {"PRIVATE"}}))
	if !strings.Contains(page, "Cancel a payment") || !strings.Contains(page, "Mottaker AS") || !strings.Contains(page, "NOK 42.00") {
		h.t.Fatalf("cancellation page does not show the payment: %s", page)
	}
	resp := p.submit(href, page, url.Values{"step": {step}})
	resp.Body.Close()
	if resp.StatusCode != 303 {
		h.t.Fatalf("%s: %d", step, resp.StatusCode)
	}
	loc, _ := url.Parse(resp.Header.Get("Location"))
	if loc.Host != "tpp.example.no" {
		h.t.Fatalf("redirect %s", loc)
	}
	return loc.Query()
}

// authorisedPayment creates a domestic payment of NOK 42 from Kari's
// account (executionDate "" means due today), has Kari authorise it and
// checks its status.
func (h *harness) authorisedPayment(executionDate, want string) (id, self string) {
	h.t.Helper()
	extra := ""
	if executionDate != "" {
		extra = `,"requestedExecutionDate":"` + executionDate + `"`
	}
	_, b, _ := h.call(tppCall{method: "POST", path: "/v1/payments/" + pis.DomesticProduct, sid: "c1", body: paymentBody("42.00", kariIBAN, olaIBAN, extra)})
	id, _ = b["paymentId"].(string)
	if id == "" {
		h.t.Fatalf("create: %v", b)
	}
	if q := h.authorise(scaLink(b), sandbox.KariNumber); q.Get("psu-id") == "" {
		h.t.Fatalf("authorise: %v", q)
	}
	h.wantStatus(id, want)
	return id, "/v1/payments/" + pis.DomesticProduct + "/" + id
}

func (h *harness) wantStatus(id, want string) {
	h.t.Helper()
	if p, err := h.st.GetPayment(context.Background(), id); err != nil || p.Status != want {
		h.t.Fatalf("payment %s: %+v %v, want %s", id, p, err, want)
	}
}

func href(b map[string]any, name string) (string, []any) {
	links, _ := b["_links"].(map[string]any)
	l, _ := links[name].(map[string]any)
	h, _ := l["href"].(string)
	verbs, _ := l["verbs"].([]any)
	return h, verbs
}

func TestPaymentCancellation(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		// Awaiting SCA: the TPP cancels alone, and no cancellation
		// authorisation exists for it.
		_, b, _ := h.call(tppCall{method: "POST", path: "/v1/payments/" + pis.DomesticProduct, sid: "c1", body: paymentBody("42.00", kariIBAN, olaIBAN, "")})
		rcvd := b["paymentId"].(string)
		rcvdSelf := "/v1/payments/" + pis.DomesticProduct + "/" + rcvd
		if status, b, _ := h.call(tppCall{method: "POST", path: rcvdSelf + "/cancellation-authorisations", sid: "c1"}); status != 409 || errCode(b) != "STATUS_INVALID" {
			t.Fatalf("cancellation authorisation of RCVD: %d %v", status, b)
		}
		if status, b, _ := h.call(tppCall{method: "DELETE", path: rcvdSelf, sid: "c1"}); status != 204 || b != nil {
			t.Fatalf("DELETE RCVD: %d %v", status, b)
		}
		h.wantStatus(rcvd, pis.StatusCancelled)

		// Authorised, future-dated: 202, a cancellation flow, the status kept.
		id, self := h.authorisedPayment(payments.Today(h.clk.now().AddDate(0, 0, 5)), pis.StatusPending)
		status, b, hdr := h.call(tppCall{method: "DELETE", path: self, sid: "c1"})
		if status != 202 || b["transactionStatus"] != pis.StatusPending {
			t.Fatalf("DELETE PDNG: %d %v", status, b)
		}
		start, verbs := href(b, "startAuthorisation")
		if start != self+"/cancellation-authorisations" || len(verbs) != 1 || verbs[0] != "POST" {
			t.Fatalf("startAuthorisation %s %v", start, verbs)
		}
		if s, _ := href(b, "self"); s != self {
			t.Fatalf("self %s", s)
		}
		if s, _ := href(b, "status"); s != self+"/status" {
			t.Fatalf("status link %s", s)
		}
		scaStatus, _ := href(b, "scaStatus")
		if scaLink(b) == "" || !strings.HasPrefix(scaStatus, self+"/cancellation-authorisations/") || hdr.Get("Location") != "" {
			t.Fatalf("links %v", b["_links"])
		}
		h.wantStatus(id, pis.StatusPending)
		if _, b, _ := h.call(tppCall{method: "GET", path: scaStatus}); b["scaStatus"] != "received" {
			t.Fatalf("scaStatus: %v", b)
		}
		// A cancellation flow is no payment authorisation.
		flowID := scaStatus[strings.LastIndex(scaStatus, "/")+1:]
		if status, _, _ := h.call(tppCall{method: "GET", path: self + "/authorisations/" + flowID}); status != 404 {
			t.Fatalf("cancellation flow as payment authorisation: %d", status)
		}

		// Another TPP can neither cancel nor start a cancellation.
		other := "PSDNO-FSA-987654322"
		if status, b, _ := h.call(tppCall{tpp: other, method: "DELETE", path: self}); status != 403 || errCode(b) != "RESOURCE_UNKNOWN" {
			t.Fatalf("other TPP DELETE: %d %v", status, b)
		}
		if status, b, _ := h.call(tppCall{tpp: other, method: "POST", path: self + "/cancellation-authorisations"}); status != 403 || errCode(b) != "RESOURCE_UNKNOWN" {
			t.Fatalf("other TPP cancellation authorisation: %d %v", status, b)
		}
		if status, _, _ := h.call(tppCall{tpp: other, method: "GET", path: scaStatus}); status != 403 {
			t.Fatalf("other TPP scaStatus: %d", status)
		}

		// Another PSU (not the debtor) cannot confirm it.
		q := h.cancelOnPage(scaLink(b202(t, h, self)), sandbox.OlaNumber, "confirm")
		if q.Get("code") != "RESOURCE_UNKNOWN" || q.Get("status") != "403" {
			t.Fatalf("foreign PSU: %v", q)
		}
		h.wantStatus(id, pis.StatusPending)

		// The PSU declines: unchanged, the flow failed.
		status, a, loc := h.call(tppCall{method: "POST", path: start, sid: "c1"})
		aStatus, _ := href(a, "scaStatus")
		if status != 201 || a["scaStatus"] != "received" || scaLink(a) == "" || loc.Get("Location") != aStatus || !strings.HasPrefix(aStatus, start+"/") {
			t.Fatalf("start cancellation authorisation: %d %v %v", status, a, loc)
		}
		if q := h.cancelOnPage(scaLink(a), sandbox.KariNumber, "cancel"); q.Get("code") == "" || q.Get("psu-id") != "" {
			t.Fatalf("decline: %v", q)
		}
		h.wantStatus(id, pis.StatusPending)
		if _, b, _ := h.call(tppCall{method: "GET", path: aStatus}); b["scaStatus"] != "failed" {
			t.Fatalf("declined scaStatus: %v", b)
		}

		// The PSU confirms: cancelled.
		_, a, _ = h.call(tppCall{method: "POST", path: start, sid: "c1"})
		aStatus, _ = href(a, "scaStatus")
		if q := h.cancelOnPage(scaLink(a), sandbox.KariNumber, "confirm"); q.Get("psu-id") == "" || q.Get("code") != "" {
			t.Fatalf("confirm: %v", q)
		}
		h.wantStatus(id, pis.StatusCancelled)
		if _, b, _ := h.call(tppCall{method: "GET", path: aStatus}); b["scaStatus"] != "finalised" {
			t.Fatalf("confirmed scaStatus: %v", b)
		}
		// Final payments: 409 as before.
		if status, b, _ := h.call(tppCall{method: "DELETE", path: self, sid: "c1"}); status != 409 || errCode(b) != "STATUS_INVALID" {
			t.Fatalf("DELETE CANC: %d %v", status, b)
		}
		if status, b, _ := h.call(tppCall{method: "POST", path: start, sid: "c1"}); status != 409 || errCode(b) != "STATUS_INVALID" {
			t.Fatalf("cancellation authorisation of CANC: %d %v", status, b)
		}

		// Executed between the 202 and the PSU's confirmation: not
		// cancelled, the flow fails.
		id, self = h.authorisedPayment("", pis.StatusAccepted)
		page := scaLink(b202(t, h, self))
		if status, b, _ := h.call(tppCall{method: "POST", path: "/v1/sandbox/payment-batch-runs"}); status != 200 {
			t.Fatalf("batch run: %d %v", status, b)
		}
		h.wantStatus(id, pis.StatusSettled)
		if q := h.cancelOnPage(page, sandbox.KariNumber, "confirm"); q.Get("code") != "STATUS_INVALID" || q.Get("status") != "409" {
			t.Fatalf("confirm after execution: %v", q)
		}
		h.wantStatus(id, pis.StatusSettled)
		if status, b, _ := h.call(tppCall{method: "DELETE", path: self, sid: "c1"}); status != 409 || errCode(b) != "STATUS_INVALID" {
			t.Fatalf("DELETE ACSC: %d %v", status, b)
		}
	})
}

// b202 sends DELETE for an authorised payment and returns the 202 body.
func b202(t *testing.T, h *harness, self string) map[string]any {
	t.Helper()
	status, b, _ := h.call(tppCall{method: "DELETE", path: self, sid: "c1"})
	if status != 202 || scaLink(b) == "" {
		t.Fatalf("DELETE: %d %v", status, b)
	}
	return b
}
