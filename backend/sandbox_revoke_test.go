package backend

import (
	"context"
	"testing"

	"github.com/obgw/obgw/backend/sandbox"
)

// TestPSURevocation (issue 14, 9, the sandbox operation): a consent the
// PSU revokes at the bank ends for the TPP: its next call gets 401
// CONSENT_EXPIRED with a scaRedirect, on another server instance too, and
// the consent reads revokedByPsu; only a valid consent of the TPP's own
// can be revoked.
func TestPSURevocation(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		q := h.consent("", "s1", sandbox.KariNumber, "", 1)
		psu := q.Get("psu-id")
		k, err := h.st.ListConsents(context.Background(), "PSDNO-FSA-987654321", kariID(t, h))
		if err != nil || len(k) != 1 {
			t.Fatalf("consents: %v %v", k, err)
		}
		id := k[0].ID
		if status, b, _ := h.call(tppCall{tpp: "PSDNO-FSA-987654322", method: "POST", path: "/v1/sandbox/consents/" + id + "/revoke"}); status != 403 {
			t.Fatalf("another TPP revokes: %d %v", status, b)
		}
		if status, b, _ := h.call(tppCall{method: "POST", path: "/v1/sandbox/consents/" + id + "/revoke"}); status != 200 || b["consentStatus"] != "revokedByPsu" {
			t.Fatalf("revoke: %d %v", status, b)
		}
		status, b, _ := h.call(tppCall{method: "GET", path: "/v1/accounts", psuID: psu})
		if status != 401 || errCode(b) != "CONSENT_EXPIRED" || scaLink(b) == "" {
			t.Fatalf("a call under the revoked consent: %d %v", status, b)
		}
		if _, b, _ := h.call(tppCall{method: "GET", path: "/v1/bank-offered-consents/" + id + "/status"}); b["consentStatus"] != "revokedByPsu" {
			t.Fatalf("status: %v", b)
		}
		if status, b, _ := h.call(tppCall{method: "POST", path: "/v1/sandbox/consents/" + id + "/revoke"}); status != 409 || errCode(b) != "STATUS_INVALID" {
			t.Fatalf("revoking twice: %d %v", status, b)
		}
	})
}
