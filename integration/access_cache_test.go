package integration

import (
	"encoding/json"
	"testing"

	"github.com/google/uuid"

	"github.com/obgw/obgw/backend/sandbox"
)

// TestRevocationStopsAccessOnTheOther (issue 31, 5): two gateways on one
// PostgreSQL database each keep resolved access in memory. A consent
// revoked through one is refused by the other on the very next request,
// though that one had just served it from memory, with the answer the
// revoking one gives; the same the other way round, three times.
func TestRevocationStopsAccessOnTheOther(t *testing.T) {
	db := databaseEnv(t, "postgres")
	gs := []*gateway{startGateway(t, "Caddyfile", db...), startGateway(t, "Caddyfile", db...)}
	c := client(nil)
	for round := range 3 {
		revoker, reader := gs[round%2], gs[(round+1)%2]
		s := &tppSession{t: t, g: revoker, c: c, tpp: "tpp", sid: uuid.NewString()}
		got := s.call("POST", "/v1/bank-offered-consents", true)
		var created struct {
			ConsentID string                           `json:"consentId"`
			Links     map[string]struct{ Href string } `json:"_links"`
		}
		if got.status != 201 || json.Unmarshal(got.body, &created) != nil {
			t.Fatalf("round %d: consent: %d %s", round, got.status, got.body)
		}
		s.psuID = psuBrowser(t, revoker, created.Links["scaRedirect"].Href, sandbox.KariNumber, 1).Get("psu-id")
		other := &tppSession{t: t, g: reader, c: c, tpp: s.tpp, sid: s.sid, psuID: s.psuID}
		for i := range 3 {
			if got := other.call("GET", "/v1/accounts", true); got.status != 200 {
				t.Fatalf("round %d: read %d on the other gateway: %d %s", round, i, got.status, got.body)
			}
		}
		if got := s.call("DELETE", "/v1/consents/"+created.ConsentID, true); got.status != 204 {
			t.Fatalf("round %d: revoke: %d %s", round, got.status, got.body)
		}
		got = other.call("GET", "/v1/accounts", true)
		if got.status != 401 {
			t.Fatalf("round %d: the other gateway, right after the revocation: %d %s", round, got.status, got.body)
		}
		// What the revoking gateway answers, from the database.
		if own := s.call("GET", "/v1/accounts", true); own.status != 401 || own.err.code() != got.err.code() {
			t.Fatalf("round %d: the revoking gateway answers %d %s, the other %s", round, own.status, own.body, got.err.code())
		}
	}
}
