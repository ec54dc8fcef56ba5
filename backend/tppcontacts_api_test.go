package backend

import (
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/obgw/obgw/tppcontext"
)

const (
	contactsTPP      = "PSDNO-FSA-987654321"
	contactsOtherTPP = "PSDNO-FSA-987654322"
)

// errPath returns the path of the first tppMessage.
func errPath(body map[string]any) string {
	msgs, _ := body["tppMessages"].([]any)
	if len(msgs) == 0 {
		return ""
	}
	p, _ := msgs[0].(map[string]any)["path"].(string)
	return p
}

// wantContacts asserts a 200 answer holding the TPP's addresses.
func wantContacts(t *testing.T, what string, status int, b map[string]any, want ...string) {
	t.Helper()
	if status != 200 || b["tppId"] != contactsTPP || len(b) != 3 {
		t.Fatalf("%s: %d %v", what, status, b)
	}
	var got []string
	for _, a := range b["emailAddresses"].([]any) {
		got = append(got, a.(string))
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: addresses %v, want %v", what, got, want)
	}
	ts, _ := b["lastUpdated"].(string)
	if at, err := time.Parse(time.RFC3339, ts); err != nil || !strings.HasSuffix(ts, "Z") || time.Since(at) > time.Minute {
		t.Fatalf("%s: lastUpdated %q", what, ts)
	}
}

func TestTPPContacts(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		get := func(query string) (int, map[string]any) {
			status, b, hdr := h.call(tppCall{method: "GET", path: "/v1/tpp-contacts" + query})
			if status == 200 && hdr.Get("Cache-Control") != "no-store" {
				t.Fatalf("GET: Cache-Control %q", hdr.Get("Cache-Control"))
			}
			return status, b
		}
		put := func(body string) (int, map[string]any) {
			status, b, _ := h.call(tppCall{method: "PUT", path: "/v1/tpp-contacts", body: body})
			return status, b
		}

		// Nothing registered yet.
		if status, b := get(""); status != 404 || errCode(b) != "RESOURCE_UNKNOWN" {
			t.Fatalf("GET before PUT: %d %v", status, b)
		}
		if status, b, _ := h.call(tppCall{method: "DELETE", path: "/v1/tpp-contacts"}); status != 404 || errCode(b) != "RESOURCE_UNKNOWN" {
			t.Fatalf("DELETE before PUT: %d %v", status, b)
		}

		status, b := put(`{"emailAddresses":["drift@tpp.example","NOC@Ops.TPP.example"]}`)
		wantContacts(t, "PUT", status, b, "drift@tpp.example", "NOC@Ops.TPP.example")
		status, b = get("")
		wantContacts(t, "GET", status, b, "drift@tpp.example", "NOC@Ops.TPP.example")

		// tppId with and without the PSD prefix.
		status, b = put(`{"tppId":"PSDNO-FSA-987654321","emailAddresses":["drift@tpp.example"]}`)
		wantContacts(t, "PUT with tppId", status, b, "drift@tpp.example")
		status, b = put(`{"tppId":"NO-FSA-987654321","emailAddresses":["incident@tpp.example"]}`)
		wantContacts(t, "PUT with tppId without PSD", status, b, "incident@tpp.example")
		for _, q := range []string{"?tppId=PSDNO-FSA-987654321", "?tppId=NO-FSA-987654321", "?tppId="} {
			status, b = get(q)
			wantContacts(t, "GET "+q, status, b, "incident@tpp.example")
		}

		// Another TPP's id is refused, and changes nothing.
		for _, body := range []string{
			`{"tppId":"PSDNO-FSA-987654322","emailAddresses":["evil@attacker.example"]}`,
			`{"tppId":"NO-FSA-987654322","emailAddresses":["evil@attacker.example"]}`,
		} {
			if status, b := put(body); status != 403 || errCode(b) != "RESOURCE_UNKNOWN" || errPath(b) != "$.tppId" {
				t.Fatalf("PUT for another TPP: %d %v", status, b)
			}
		}
		for _, method := range []string{"GET", "DELETE"} {
			for _, q := range []string{"?tppId=PSDNO-FSA-987654322", "?tppId=NO-FSA-987654322"} {
				if status, b, _ := h.call(tppCall{method: method, path: "/v1/tpp-contacts" + q}); status != 403 || errCode(b) != "RESOURCE_UNKNOWN" || errPath(b) != "tppId" {
					t.Fatalf("%s %s: %d %v", method, q, status, b)
				}
			}
		}
		status, b = get("")
		wantContacts(t, "GET after refusals", status, b, "incident@tpp.example")

		// The other TPP has its own record, and sees none of the first's.
		if status, b, _ := h.call(tppCall{tpp: contactsOtherTPP, method: "GET", path: "/v1/tpp-contacts"}); status != 404 {
			t.Fatalf("other TPP GET: %d %v", status, b)
		}
		if status, b, _ := h.call(tppCall{tpp: contactsOtherTPP, method: "GET", path: "/v1/tpp-contacts?tppId=NO-FSA-987654321"}); status != 403 {
			t.Fatalf("other TPP GET naming the first: %d %v", status, b)
		}
		status, b, _ = h.call(tppCall{tpp: contactsOtherTPP, method: "PUT", path: "/v1/tpp-contacts", body: `{"emailAddresses":["ops@other.example"]}`})
		if status != 200 || b["tppId"] != contactsOtherTPP {
			t.Fatalf("other TPP PUT: %d %v", status, b)
		}

		// Query strings.
		for q, wantPath := range map[string]string{
			"?tppId=987654321": "tppId",
			"?tppId=NO-FSA-987654321&tppId=NO-FSA-987654321": "tppId",
			"?tppid=NO-FSA-987654321":                        "",
			"?tppId=%zz":                                     "",
			"?tppId=PSDNO-FSA-98765%004321":                  "tppId",
		} {
			if status, b := get(q); status != 400 || errCode(b) != "FORMAT_ERROR" || errPath(b) != wantPath {
				t.Fatalf("GET %s: %d %v", q, status, b)
			}
		}
		if status, b, _ := h.call(tppCall{method: "PUT", path: "/v1/tpp-contacts?tppId=NO-FSA-987654321", body: `{"emailAddresses":["a@tpp.example"]}`}); status != 400 || errCode(b) != "FORMAT_ERROR" {
			t.Fatalf("PUT with a query: %d %v", status, b)
		}

		// Delete: 204, then nothing to delete.
		if status, b, _ := h.call(tppCall{method: "DELETE", path: "/v1/tpp-contacts?tppId=NO-FSA-987654321"}); status != 204 || b != nil {
			t.Fatalf("DELETE: %d %v", status, b)
		}
		if status, b := get(""); status != 404 || errCode(b) != "RESOURCE_UNKNOWN" {
			t.Fatalf("GET after DELETE: %d %v", status, b)
		}
		if status, b, _ := h.call(tppCall{method: "DELETE", path: "/v1/tpp-contacts"}); status != 404 {
			t.Fatalf("DELETE twice: %d %v", status, b)
		}
		if status, _, _ := h.call(tppCall{tpp: contactsOtherTPP, method: "GET", path: "/v1/tpp-contacts"}); status != 200 {
			t.Fatalf("deleting one TPP's contacts removed the other's: %d", status)
		}
		if status, b, _ := h.call(tppCall{method: "POST", path: "/v1/tpp-contacts", body: `{"emailAddresses":["a@tpp.example"]}`}); status != 405 || errCode(b) != "SERVICE_INVALID" {
			t.Fatalf("POST: %d %v", status, b)
		}
	})
}

// TestTPPContactsBodyRules: each rule of the body is a 400 FORMAT_ERROR
// naming its JSON path, with a text that quotes no address, and stores
// nothing.
func TestTPPContactsBodyRules(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		eleven := `"a0@t.no","a1@t.no","a2@t.no","a3@t.no","a4@t.no","a5@t.no","a6@t.no","a7@t.no","a8@t.no","a9@t.no","a10@t.no"`
		for _, tc := range []struct{ name, body, path string }{
			{"no addresses", `{"emailAddresses":[]}`, "$.emailAddresses"},
			{"eleven addresses", `{"emailAddresses":[` + eleven + `]}`, "$.emailAddresses"},
			{"missing", `{"tppId":"NO-FSA-987654321"}`, "$.emailAddresses"},
			{"not an array", `{"emailAddresses":"secret@tpp.example"}`, "$.emailAddresses"},
			{"not a string", `{"emailAddresses":["secret@tpp.example",42]}`, "$.emailAddresses[1]"},
			{"display name", `{"emailAddresses":["Kari Secret <secret@tpp.example>"]}`, "$.emailAddresses[0]"},
			{"no domain name", `{"emailAddresses":["secret@localhost"]}`, "$.emailAddresses[0]"},
			{"not ASCII", `{"emailAddresses":["secret@blåbær.no"]}`, "$.emailAddresses[0]"},
			{"too long", `{"emailAddresses":["secret@` + strings.Repeat("a.", 125) + `no"]}`, "$.emailAddresses[0]"},
			{"duplicate", `{"emailAddresses":["secret@tpp.example","secret@TPP.EXAMPLE"]}`, "$.emailAddresses[1]"},
			{"malformed tppId", `{"tppId":"FSA-987654321","emailAddresses":["secret@tpp.example"]}`, "$.tppId"},
			{"unknown field", `{"emailAddresses":["secret@tpp.example"],"name":"Drift"}`, "$.name"},
			{"duplicate member", `{"emailAddresses":["secret@tpp.example"],"emailAddresses":["secret@tpp.example"]}`, "$.emailAddresses"},
			{"control character", `{"emailAddresses":["secret@tpp.example\u0007"]}`, "$.emailAddresses[0]"},
			{"an array", `["secret@tpp.example"]`, "$"},
			{"not JSON", `{"emailAddresses":["secret@tpp.example"]`, "$"},
			{"empty body", ``, "$"},
		} {
			status, b, _ := h.call(tppCall{method: "PUT", path: "/v1/tpp-contacts", body: tc.body})
			raw, _ := json.Marshal(b)
			if status != 400 || errCode(b) != "FORMAT_ERROR" || errPath(b) != tc.path || strings.Contains(string(raw), "secret@") {
				t.Errorf("%s: %d %s, want 400 FORMAT_ERROR at %s", tc.name, status, raw, tc.path)
			}
		}
		if status, b, _ := h.call(tppCall{method: "GET", path: "/v1/tpp-contacts"}); status != 404 {
			t.Fatalf("a refused body stored something: %d %v", status, b)
		}
	})
}

// TestTPPContactsNeedVerifiedTPP: the backend answers only a token issued
// for this very method and path, naming a TPP whose identity was verified
// and that holds some PSD2 role.
func TestTPPContactsNeedVerifiedTPP(t *testing.T) {
	h := newHarness(t, "sqlite")
	body := `{"emailAddresses":["drift@tpp.example"]}`
	for _, tc := range []struct {
		name string
		ctx  *tppcontext.Context // nil: no token
		code string
	}{
		{"no token", nil, "CERTIFICATE_INVALID"},
		{"no role", &tppcontext.Context{TPP: contactsTPP, Method: "PUT", Path: "/v1/tpp-contacts"}, "ROLE_INVALID"},
		{"signature only reported", &tppcontext.Context{TPP: contactsTPP, Roles: []string{"PSP_AI"}, Unverified: []string{"signature"}, Method: "PUT", Path: "/v1/tpp-contacts"}, "CERTIFICATE_INVALID"},
		{"certificate only reported", &tppcontext.Context{TPP: contactsTPP, Roles: []string{"PSP_AI"}, Unverified: []string{"certificate"}, Method: "PUT", Path: "/v1/tpp-contacts"}, "CERTIFICATE_INVALID"},
		{"token for GET", &tppcontext.Context{TPP: contactsTPP, Roles: []string{"PSP_AI"}, Method: "GET", Path: "/v1/tpp-contacts"}, "CERTIFICATE_INVALID"},
		{"token for another path", &tppcontext.Context{TPP: contactsTPP, Roles: []string{"PSP_AI"}, Method: "PUT", Path: "/v1/sandbox/accounts/x/balances"}, "CERTIFICATE_INVALID"},
	} {
		rid := uuid.NewString()
		req, _ := http.NewRequest("PUT", h.srv.URL+"/v1/tpp-contacts", strings.NewReader(body))
		req.Header.Set("X-Request-ID", rid)
		if tc.ctx != nil {
			tc.ctx.RequestID = rid
			tok, err := h.issuer.Issue(*tc.ctx, h.clk.now())
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set(tppcontext.Header, tok)
		}
		resp, err := h.srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 401 || !strings.Contains(string(raw), tc.code) {
			t.Errorf("%s: %d %s, want 401 %s", tc.name, resp.StatusCode, raw, tc.code)
		}
	}
	if status, b, _ := h.call(tppCall{method: "GET", path: "/v1/tpp-contacts"}); status != 404 {
		t.Fatalf("a refused request stored something: %d %v", status, b)
	}
	// Any one PSD2 role is enough: a card-based payment instrument issuer.
	rid := uuid.NewString()
	tok, _ := h.issuer.Issue(tppcontext.Context{TPP: contactsTPP, Roles: []string{"PSP_IC"}, RequestID: rid, Method: "PUT", Path: "/v1/tpp-contacts"}, h.clk.now())
	req, _ := http.NewRequest("PUT", h.srv.URL+"/v1/tpp-contacts", strings.NewReader(body))
	req.Header.Set("X-Request-ID", rid)
	req.Header.Set(tppcontext.Header, tok)
	setTPPHeaders(req, body, h.clk.now())
	resp, err := h.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("PSP_IC: %d", resp.StatusCode)
	}
}
