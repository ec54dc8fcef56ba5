package tppcontext

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"flag"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

var updateVectors = flag.Bool("update", false, "rewrite docs/context-token-vectors.json")

// vectorsFile holds the context token's test vectors: a JWKS, the
// audience, and requests with their tokens and the verdict a verifier that
// follows docs/context-token.md must reach. They are language-neutral
// (JSON); integration/testdata/upstream-node/vectors.mjs checks a verifier
// written from the document alone in Node against them.
const vectorsFile = "../docs/context-token-vectors.json"

// Vectors is the file's shape.
type Vectors struct {
	Comment  string             `json:"comment"`
	JWKS     jose.JSONWebKeySet `json:"jwks"`
	Audience string             `json:"audience"`
	Cases    []VectorCase       `json:"cases"`
}

// VectorCase is one request, its token and the verdict.
type VectorCase struct {
	Name string `json:"name"`
	// Token is the X-Obgw-Context header's value.
	Token string `json:"token"`
	// Now is the verifier's clock, Unix seconds.
	Now int64 `json:"now"`
	// Method, Path (as sent: percent-encoded) and RequestID (the
	// X-Request-ID header) are the request the token came with, without
	// the upstream's path prefix.
	Method    string `json:"method"`
	Path      string `json:"path"`
	RequestID string `json:"requestId"`
	// Role is the role the operation needs ("" for none).
	Role string `json:"role"`
	// Valid is the verdict: accept (true) or refuse (false).
	Valid bool `json:"valid"`
}

// vectorKeys are fixed keys, so that the JWKS and the EdDSA tokens are
// the same every time they are made: A (Ed25519) and B (P-256) are in the
// JWKS, C (Ed25519) is not.
func vectorKeys(t *testing.T) (a, b, c *SigningKey) {
	t.Helper()
	mk := func(key any) *SigningKey {
		k, err := NewSigningKey(key)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	ec, err := ecdsa.ParseRawPrivateKey(elliptic.P256(), bytes.Repeat([]byte{0x42}, 32))
	if err != nil {
		t.Fatal(err)
	}
	return mk(ed25519.NewKeyFromSeed(bytes.Repeat([]byte{0x0a}, 32))), mk(ec), mk(ed25519.NewKeyFromSeed(bytes.Repeat([]byte{0x0c}, 32)))
}

// TestContextTokenVectors makes the vectors (with -update) or reads them,
// and holds the Go verifier (NewKeySetVerifier, VerifyRequest, HasRole)
// to every verdict.
func TestContextTokenVectors(t *testing.T) {
	var v Vectors
	if *updateVectors {
		v = makeVectors(t)
		out, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(vectorsFile, append(out, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	} else {
		raw, err := os.ReadFile(vectorsFile)
		if err != nil {
			t.Fatalf("%v: run go test ./tppcontext -run TestContextTokenVectors -update", err)
		}
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatal(err)
		}
	}
	a, b, _ := vectorKeys(t)
	if got := KeySet(a, b); len(v.JWKS.Keys) != 2 || v.JWKS.Keys[0].KeyID != got.Keys[0].KeyID || v.JWKS.Keys[1].KeyID != got.Keys[1].KeyID {
		t.Fatalf("the vectors' JWKS is not the fixed keys': rerun with -update")
	}
	valid, invalid := 0, 0
	for _, c := range v.Cases {
		ver, err := NewKeySetVerifier(v.JWKS)
		if err != nil {
			t.Fatal(err)
		}
		path, err := url.PathUnescape(c.Path)
		if err != nil {
			t.Fatal(err)
		}
		ctx, err := ver.WithAudience(v.Audience).VerifyRequest(c.Token, c.Method, path, c.RequestID, time.Unix(c.Now, 0))
		got := err == nil && (c.Role == "" || ctx.HasRole(c.Role))
		if got != c.Valid {
			t.Errorf("%s: the Go verifier says valid %v (%v), the vector %v", c.Name, got, err, c.Valid)
		}
		if c.Valid {
			valid++
		} else {
			invalid++
		}
	}
	if valid < 3 || invalid < 10 {
		t.Fatalf("%d valid and %d invalid vectors: too few", valid, invalid)
	}
}

// makeVectors signs the cases.
func makeVectors(t *testing.T) Vectors {
	t.Helper()
	a, b, c := vectorKeys(t)
	const aud = "bank-api"
	t0 := time.Unix(1795000000, 0)
	base := Context{TPP: "PSDNO-FSA-987654321", TPPName: "Test TPP AS", Roles: []string{"PSP_AI"},
		CertSHA256: strings.Repeat("ab", 32), RequestID: "99391c7e-ad88-49ec-a2ad-99ddcb1f7721",
		Method: "GET", Path: "/v1/accounts", PSUID: "3f6e2b1c-9a4d-4c1e-8b7f-2d5e6a7b8c9d", PSUPresent: true}
	issue := func(k *SigningKey, ctx Context, audience string) string {
		iss, err := NewIssuer(k)
		if err != nil {
			t.Fatal(err)
		}
		tok, err := iss.WithAudience(audience).Issue(ctx, t0)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	enc := base64.RawURLEncoding
	// raw signs header and claims (any JSON) with Ed25519 key A.
	raw := func(header, claims map[string]any, sign func(input []byte) []byte) string {
		h, _ := json.Marshal(header)
		p, _ := json.Marshal(claims)
		input := enc.EncodeToString(h) + "." + enc.EncodeToString(p)
		return input + "." + enc.EncodeToString(sign([]byte(input)))
	}
	claims := func(edit func(m map[string]any)) map[string]any {
		j, _ := json.Marshal(base)
		var m map[string]any
		_ = json.Unmarshal(j, &m)
		m["ver"], m["aud"], m["iat"], m["exp"] = Version, aud, t0.Unix(), t0.Add(Lifetime).Unix()
		edit(m)
		return m
	}
	edA := func(input []byte) []byte { return ed25519.Sign(a.key.(ed25519.PrivateKey), input) }
	valid := issue(a, base, aud)
	escaped := base
	escaped.Path = "/v1/accounts/enc!!x"
	parts := strings.Split(valid, ".")
	tampered := claims(func(m map[string]any) { m["tpp"] = "PSDNO-FSA-123456789" })
	tp, _ := json.Marshal(tampered)
	pubA := a.PublicJWK().Key.(ed25519.PublicKey)
	at := func(d time.Duration) int64 { return t0.Add(d).Unix() }
	req := func(name, tok string, now int64, validity bool) VectorCase {
		return VectorCase{Name: name, Token: tok, Now: now, Method: base.Method, Path: base.Path, RequestID: base.RequestID, Role: "PSP_AI", Valid: validity}
	}
	cases := []VectorCase{
		req("valid, EdDSA", valid, at(10*time.Second), true),
		req("valid, ES256", issue(b, base, aud), at(10*time.Second), true),
		req("valid at its last second", valid, at(Lifetime), true),
		req("expired", valid, at(Lifetime+30*time.Second), false),
		req("issued in the future", valid, at(-30*time.Second), false),
		req("for another audience", issue(a, base, "other-bank"), at(10*time.Second), false),
		req("signed with a key the JWKS lacks", issue(c, base, aud), at(10*time.Second), false),
		req("alg none", raw(map[string]any{"alg": "none", "kid": a.KeyID()}, claims(func(map[string]any) {}), func([]byte) []byte { return nil }), at(10*time.Second), false),
		req("HS256 keyed with the public key", raw(map[string]any{"alg": "HS256", "kid": a.KeyID()}, claims(func(map[string]any) {}), func(in []byte) []byte {
			m := hmac.New(sha256.New, pubA)
			m.Write(in)
			return m.Sum(nil)
		}), at(10*time.Second), false),
		req("ES256 named with the EdDSA key's kid", raw(map[string]any{"alg": "ES256", "kid": a.KeyID()}, claims(func(map[string]any) {}), edA), at(10*time.Second), false),
		req("an unknown version", raw(map[string]any{"alg": "EdDSA", "kid": a.KeyID()}, claims(func(m map[string]any) { m["ver"] = 2 }), edA), at(10*time.Second), false),
		req("no tpp", raw(map[string]any{"alg": "EdDSA", "kid": a.KeyID()}, claims(func(m map[string]any) { delete(m, "tpp") }), edA), at(10*time.Second), false),
		req("the claims altered after signing", parts[0]+"."+enc.EncodeToString(tp)+"."+parts[2], at(10*time.Second), false),
	}
	other := func(name string, edit func(c *VectorCase)) {
		v := req(name, valid, at(10*time.Second), false)
		edit(&v)
		cases = append(cases, v)
	}
	other("for another method", func(c *VectorCase) { c.Method = "POST" })
	other("for another path", func(c *VectorCase) { c.Path = "/v1/accounts/other" })
	other("for another X-Request-ID", func(c *VectorCase) { c.RequestID = "6f1c1b7e-0000-4000-8000-000000000000" })
	other("without the role the operation needs", func(c *VectorCase) { c.Role = "PSP_PI" })
	cases = append(cases, VectorCase{Name: "valid, an id sent percent-encoded", Token: issue(a, escaped, aud), Now: at(10 * time.Second),
		Method: "GET", Path: "/v1/accounts/enc%21%21x", RequestID: base.RequestID, Role: "PSP_AI", Valid: true})
	return Vectors{
		Comment: "Test vectors of docs/context-token.md: accept a case's token for its request (method, path as sent, X-Request-ID, the role the operation needs) at time now exactly when valid is true. " +
			"Made by go test ./tppcontext -run TestContextTokenVectors -update.",
		JWKS: KeySet(a, b), Audience: aud, Cases: cases,
	}
}
