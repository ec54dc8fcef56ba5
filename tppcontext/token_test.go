package tppcontext

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
)

func sample() Context {
	return Context{TPP: "PSDNO-FSA-987654321", TPPName: "Test TPP AS", Roles: []string{"PSP_AI"},
		CertSHA256: "ab", RequestID: "99391c7e-ad88-49ec-a2ad-99ddcb1f7721", PSUPresent: true}
}

func TestRoundTripHS256(t *testing.T) {
	key := bytes.Repeat([]byte{7}, 32)
	iss, err := NewIssuer(key)
	if err != nil {
		t.Fatal(err)
	}
	ver, _ := NewVerifier(key)
	now := time.Unix(1_800_000_000, 0)
	tok, err := iss.Issue(sample(), now)
	if err != nil {
		t.Fatal(err)
	}
	c, err := ver.Verify(tok, now.Add(30*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if c.TPP != "PSDNO-FSA-987654321" || !c.HasRole("PSP_AI") || c.HasRole("PSP_PI") || !c.PSUPresent {
		t.Fatalf("%+v", c)
	}
	if _, err := ver.Verify(tok, now.Add(61*time.Second)); !errors.Is(err, ErrExpired) {
		t.Fatalf("expired token: %v", err)
	}
	other, _ := NewVerifier(bytes.Repeat([]byte{8}, 32))
	if _, err := other.Verify(tok, now); !errors.Is(err, ErrInvalid) {
		t.Fatalf("wrong key: %v", err)
	}
	parts := strings.Split(tok, ".")
	tampered := parts[0] + "." + parts[1] + "x." + parts[2]
	if _, err := ver.Verify(tampered, now); !errors.Is(err, ErrInvalid) {
		t.Fatalf("tampered: %v", err)
	}
	if _, err := ver.Verify("", now); !errors.Is(err, ErrMissing) {
		t.Fatalf("empty: %v", err)
	}
}

func TestRoundTripEdDSAAndAlgorithmPinning(t *testing.T) {
	pub, priv, _ := ed25519.GenerateKey(rand.Reader)
	iss, err := NewIssuer(priv)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	tok, _ := iss.Issue(sample(), now)
	ver, _ := NewVerifier(pub)
	if _, err := ver.Verify(tok, now); err != nil {
		t.Fatal(err)
	}
	// A verifier configured for HS256 refuses an EdDSA token outright.
	hs, _ := NewVerifier(bytes.Repeat([]byte{1}, 32))
	if _, err := hs.Verify(tok, now); !errors.Is(err, ErrInvalid) {
		t.Fatalf("alg confusion: %v", err)
	}
	// "none" and garbage are refused.
	if _, err := ver.Verify("eyJhbGciOiJub25lIn0.eyJ0cHAiOiJ4In0.", now); !errors.Is(err, ErrInvalid) {
		t.Fatalf("none: %v", err)
	}
}

func TestShortSecretRefused(t *testing.T) {
	if _, err := NewIssuer([]byte("short")); err == nil {
		t.Fatal("short secret accepted")
	}
	if _, err := NewVerifier([]byte("short")); err == nil {
		t.Fatal("short secret accepted")
	}
}

func BenchmarkIssueHS256(b *testing.B) {
	iss, _ := NewIssuer(bytes.Repeat([]byte{7}, 32))
	c := sample()
	now := time.Now()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := iss.Issue(c, now); err != nil {
			b.Fatal(err)
		}
	}
}

// The issuer writes the compact form itself; go-jose, the only parser,
// must read exactly the header and claims that were meant, from many
// goroutines at once (the MACs are pooled).
func TestIssuedFormParsedByGoJose(t *testing.T) {
	key := bytes.Repeat([]byte{9}, 32)
	iss, _ := NewIssuer(key)
	now := time.Unix(1_800_000_000, 0)
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; n < 200; n++ {
				c := sample()
				c.RequestID = fmt.Sprintf("req-%d-%d", g, n)
				tok, err := iss.Issue(c, now)
				if err != nil {
					errs <- err
					return
				}
				jws, err := jose.ParseSignedCompact(tok, []jose.SignatureAlgorithm{jose.HS256})
				if err != nil {
					errs <- err
					return
				}
				if h := jws.Signatures[0].Protected; h.Algorithm != "HS256" || h.KeyID != "" || len(h.ExtraHeaders) != 0 {
					errs <- fmt.Errorf("protected header %+v", h)
					return
				}
				payload, err := jws.Verify(key)
				if err != nil {
					errs <- err
					return
				}
				var got Context
				if err := json.Unmarshal(payload, &got); err != nil || got.RequestID != c.RequestID || got.IssuedAt != now.Unix() || got.Expiry != now.Add(Lifetime).Unix() {
					errs <- fmt.Errorf("claims %s: %v", payload, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

func TestEd25519KeyOfWrongSizeRefused(t *testing.T) {
	if _, err := NewIssuer(ed25519.PrivateKey(make([]byte, 10))); err == nil {
		t.Fatal("short Ed25519 key accepted")
	}
}

// TestVerifyRefusesWhatTheContractRefuses: docs/context-token.md's "What a
// backend must refuse", the claims and the request, as Verify and
// VerifyRequest hold them.
func TestVerifyRefusesWhatTheContractRefuses(t *testing.T) {
	key := bytes.Repeat([]byte{7}, 32)
	ver, _ := NewVerifier(key)
	now := time.Unix(1_800_000_000, 0)
	signed := func(claims map[string]any) string {
		t.Helper()
		s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.HS256, Key: key}, nil)
		if err != nil {
			t.Fatal(err)
		}
		payload, _ := json.Marshal(claims)
		jws, err := s.Sign(payload)
		if err != nil {
			t.Fatal(err)
		}
		tok, _ := jws.CompactSerialize()
		return tok
	}
	good := func() map[string]any {
		return map[string]any{"ver": 1, "tpp": "PSDNO-FSA-987654321", "roles": []string{"PSP_AI"}, "requestId": "r1",
			"method": "GET", "path": "/v1/accounts", "iat": now.Unix(), "exp": now.Add(Lifetime).Unix()}
	}
	if c, err := ver.VerifyRequest(signed(good()), "GET", "/v1/accounts", "r1", now); err != nil || c.TPP != "PSDNO-FSA-987654321" {
		t.Fatalf("a good token: %v", err)
	}
	for _, tt := range []struct {
		name   string
		edit   func(map[string]any)
		method string
		path   string
		reqID  string
		want   error
	}{
		{"a later version", func(c map[string]any) { c["ver"] = Version + 1 }, "GET", "/v1/accounts", "r1", ErrInvalid},
		{"no version", func(c map[string]any) { delete(c, "ver") }, "GET", "/v1/accounts", "r1", ErrInvalid},
		{"no tpp", func(c map[string]any) { delete(c, "tpp") }, "GET", "/v1/accounts", "r1", ErrInvalid},
		{"no requestId", func(c map[string]any) { delete(c, "requestId") }, "GET", "/v1/accounts", "", ErrInvalid},
		{"no iat", func(c map[string]any) { delete(c, "iat") }, "GET", "/v1/accounts", "r1", ErrInvalid},
		{"no exp", func(c map[string]any) { delete(c, "exp") }, "GET", "/v1/accounts", "r1", ErrInvalid},
		{"expired", func(c map[string]any) { c["exp"] = now.Add(-time.Second).Unix() }, "GET", "/v1/accounts", "r1", ErrExpired},
		{"issued beyond the skew", func(c map[string]any) { c["iat"] = now.Add(ClockSkew + time.Second).Unix() }, "GET", "/v1/accounts", "r1", ErrExpired},
		{"another method", nil, "DELETE", "/v1/accounts", "r1", ErrOtherRequest},
		{"another path", nil, "GET", "/v1/accounts/1/balances", "r1", ErrOtherRequest},
		{"another X-Request-ID", nil, "GET", "/v1/accounts", "r2", ErrOtherRequest},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := good()
			if tt.edit != nil {
				tt.edit(c)
			}
			if _, err := ver.VerifyRequest(signed(c), tt.method, tt.path, tt.reqID, now); !errors.Is(err, tt.want) {
				t.Fatalf("%v, want %v", err, tt.want)
			}
		})
	}
	// Issued within the skew: accepted.
	c := good()
	c["iat"] = now.Add(ClockSkew).Unix()
	if _, err := ver.Verify(signed(c), now); err != nil {
		t.Fatalf("issued within the skew: %v", err)
	}
}
