package backend

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/obgw/obgw/backend/sandbox"
)

// kariID is the store id of the sandbox PSU Kari.
func kariID(t *testing.T, h *harness) string {
	t.Helper()
	c, err := h.st.GetCustomerByNumber(context.Background(), testTPP, sandbox.KariNumber)
	if err != nil {
		t.Fatal(err)
	}
	return c.ID
}

// TestConsentsAliases (issue 14, 13): the deprecated /v1/consents serves
// the same consent as /v1/bank-offered-consents: read, status, delete.
func TestConsentsAliases(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		status, b, _ := h.call(tppCall{method: "POST", path: "/v1/consents", sid: "s1", body: `{"ignored":true}`})
		id, _ := b["consentId"].(string)
		if status != 201 || id == "" {
			t.Fatalf("create: %d %v", status, b)
		}
		for _, path := range []string{"/v1/consents/" + id, "/v1/bank-offered-consents/" + id} {
			if status, b, _ := h.call(tppCall{method: "GET", path: path}); status != 200 || b["consentStatus"] != "received" {
				t.Fatalf("GET %s: %d %v", path, status, b)
			}
		}
		if status, b, _ := h.call(tppCall{method: "GET", path: "/v1/consents/" + id + "/status"}); status != 200 || b["consentStatus"] != "received" {
			t.Fatalf("status: %d %v", status, b)
		}
		// A consent the PSU gave, deleted under the deprecated name.
		h.consent("", "s2", sandbox.KariNumber, "", 1)
		k, err := h.st.ListConsents(context.Background(), "PSDNO-FSA-987654321", kariID(t, h))
		if err != nil || len(k) == 0 {
			t.Fatalf("consents: %v %v", k, err)
		}
		if status, b, _ := h.call(tppCall{method: "DELETE", path: "/v1/consents/" + k[0].ID}); status != 204 {
			t.Fatalf("delete: %d %v", status, b)
		}
		if _, b, _ := h.call(tppCall{method: "GET", path: "/v1/bank-offered-consents/" + k[0].ID + "/status"}); b["consentStatus"] != "terminatedByTpp" {
			t.Fatalf("after delete: %v", b)
		}
	})
}

// TestDeleteReceivedConsent (issue 29, 10): a consent still received (its
// SCA not done) is deleted with 204 and reads terminatedByTpp; its SCA
// link no longer opens, and a second delete is 409.
func TestDeleteReceivedConsent(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		status, b, _ := h.call(tppCall{method: "POST", path: "/v1/bank-offered-consents", sid: "d"})
		if status != 201 {
			t.Fatalf("consent: %d %v", status, b)
		}
		id, link := b["consentId"].(string), scaLink(b)
		self := "/v1/bank-offered-consents/" + id
		if status, b, _ := h.call(tppCall{method: "DELETE", path: self}); status != 204 {
			t.Fatalf("delete a received consent: %d %v", status, b)
		}
		if _, b, _ := h.call(tppCall{method: "GET", path: self + "/status"}); b["consentStatus"] != "terminatedByTpp" {
			t.Fatalf("after delete: %v", b)
		}
		if status, _ := opens(t, h.srv, link); status != http.StatusGone {
			t.Fatalf("the deleted consent's SCA link: %d", status)
		}
		if status, b, _ := h.call(tppCall{method: "DELETE", path: self}); status != 409 || errCode(b) != "STATUS_INVALID" {
			t.Fatalf("a second delete: %d %v", status, b)
		}
	})
}

// TestLatestConsentReplaces (issue 29, 2): within a context, the PSU's
// latest authorised consent replaces the older ones, which read expired
// (to the TPP and on the PSU's page); revoking or deleting the latest
// leaves no access in that context until a new SCA, even when an older
// consent was left valid (a database from before this rule).
func TestLatestConsentReplaces(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		q := h.consent("", "s1", sandbox.KariNumber, "", 2)
		psu := q.Get("psu-id")
		h.clk.add(time.Second)
		h.consent("", "s2", sandbox.KariNumber, "", 1)
		ks, err := h.st.ListConsents(context.Background(), testTPP, kariID(t, h))
		if err != nil || len(ks) != 2 {
			t.Fatalf("consents: %v %v", ks, err)
		}
		newest, older := ks[0], ks[1]
		if _, b, _ := h.call(tppCall{method: "GET", path: "/v1/bank-offered-consents/" + older.ID + "/status"}); b["consentStatus"] != "expired" {
			t.Fatalf("the replaced consent: %v", b)
		}
		if status, b, _ := h.call(tppCall{method: "GET", path: "/v1/accounts", psuID: psu}); status != 200 || len(b["accounts"].([]any)) != 1 {
			t.Fatalf("under the latest consent (1 account): %d %v", status, b)
		}
		if status, b, _ := h.call(tppCall{method: "POST", path: "/v1/sandbox/consents/" + newest.ID + "/revoke"}); status != 200 {
			t.Fatalf("revoke: %d %v", status, b)
		}
		// An older consent left valid, as a database from before this
		// rule holds: still no access.
		if err := h.st.SetConsentStatus(context.Background(), older.ID, "valid"); err != nil {
			t.Fatal(err)
		}
		if status, b, _ := h.call(tppCall{method: "GET", path: "/v1/accounts", psuID: psu}); status != 401 || errCode(b) != "CONSENT_EXPIRED" || scaLink(b) == "" {
			t.Fatalf("the latest consent revoked, an older one valid: %d %v", status, b)
		}
		// A newer consent of one account, deleted by the TPP: the older
		// one of two accounts does not come back.
		h.clk.add(time.Second)
		h.consent("", "s3", sandbox.KariNumber, "", 1)
		ks, _ = h.st.ListConsents(context.Background(), testTPP, kariID(t, h))
		if status, _, _ := h.call(tppCall{method: "DELETE", path: "/v1/bank-offered-consents/" + ks[0].ID}); status != 204 {
			t.Fatalf("delete: %d", status)
		}
		if err := h.st.SetConsentStatus(context.Background(), older.ID, "valid"); err != nil {
			t.Fatal(err)
		}
		if status, b, _ := h.call(tppCall{method: "GET", path: "/v1/accounts", psuID: psu}); status != 401 {
			t.Fatalf("after the TPP deleted the latest consent: %d %v", status, b)
		}
	})
}
