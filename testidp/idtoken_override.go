package testidp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/zitadel/oidc/v3/pkg/crypto"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// idTokenOverride is what SetIDTokenIssuer and SetIDTokenAudience put in
// the ID tokens the token endpoint answers with, in place of what op
// wrote. op stamps iss from the issuer of the request's context and aud
// and azp from the client that exchanges the code (it always adds that
// client to aud), so a token naming another issuer or only another client
// cannot come out of op itself: the token endpoint's answer is rewritten
// and signed again with the provider's own key, as a misconfigured or
// compromised provider would sign it.
type idTokenOverride struct {
	iss string
	aud []string
	// noAuthTime leaves auth_time out, as a provider that ignores max_age
	// does (Dex).
	noAuthTime bool
}

func (o idTokenOverride) none() bool { return o.iss == "" && len(o.aud) == 0 && !o.noAuthTime }

// apply is the ID token raw (signed by key, which is checked) with o's
// claims, signed again by key.
func (o idTokenOverride) apply(raw string, key *signingKey) (string, error) {
	jws, err := jose.ParseSignedCompact(raw, []jose.SignatureAlgorithm{key.SignatureAlgorithm()})
	if err != nil {
		return "", err
	}
	payload, err := jws.Verify(&key.key.PublicKey)
	if err != nil {
		return "", err
	}
	var claims map[string]any
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.UseNumber() // iat, exp and auth_time as op wrote them
	if err := dec.Decode(&claims); err != nil {
		return "", err
	}
	if o.iss != "" {
		claims["iss"] = o.iss
	}
	if o.noAuthTime {
		delete(claims, "auth_time")
	}
	if len(o.aud) > 0 {
		// Issued to aud[0]: the parties it names are the audience's.
		claims["aud"] = slices.Clone(o.aud)
		claims["azp"] = o.aud[0]
		claims["client_id"] = o.aud[0]
	}
	signer, err := op.SignerFromKey(key)
	if err != nil {
		return "", err
	}
	return crypto.Sign(claims, signer)
}

// serveTokenOverridden has op answer the token request r, then puts o's
// claims in the ID token of a successful answer.
func (p *Provider) serveTokenOverridden(w http.ResponseWriter, r *http.Request, o idTokenOverride) {
	rec := httptest.NewRecorder()
	p.handler.ServeHTTP(rec, r)
	body := rec.Body.Bytes()
	if rec.Code == http.StatusOK {
		var resp map[string]any
		if err := json.Unmarshal(body, &resp); err != nil {
			http.Error(w, fmt.Sprintf("testidp: token response: %v", err), http.StatusInternalServerError)
			return
		}
		if raw, ok := resp["id_token"].(string); ok {
			idt, err := o.apply(raw, p.key)
			if err != nil {
				http.Error(w, fmt.Sprintf("testidp: ID token override: %v", err), http.StatusInternalServerError)
				return
			}
			resp["id_token"] = idt
			body, _ = json.Marshal(resp)
		}
	}
	for k, vs := range rec.Header() {
		if k != "Content-Length" {
			w.Header()[k] = vs
		}
	}
	w.WriteHeader(rec.Code)
	w.Write(body)
}
