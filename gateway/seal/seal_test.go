package seal

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/obgw/obgw/opensslrsa"
	"github.com/obgw/obgw/pemfile"
	"github.com/obgw/obgw/testpki"
	"github.com/obgw/obgw/tppclient"
)

func loadSeal(t testing.TB) (*Seal, []byte) {
	t.Helper()
	return loadSealFiles(t, testpki.FileBankSeal, testpki.FileBankSealKey)
}

// loadSealFiles loads the test PKI's seal of certName and keyName.
func loadSealFiles(t testing.TB, certName, keyName string) (*Seal, []byte) {
	t.Helper()
	certPEM, err := os.ReadFile("../../testdata/pki/" + certName)
	if err != nil {
		t.Fatal(err)
	}
	keyPEM, err := os.ReadFile("../../testdata/pki/" + keyName)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Load(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	return s, certPEM
}

var now = time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)

func signed(t *testing.T, s *Seal, body []byte, requestID string) http.Header {
	t.Helper()
	h := http.Header{"Content-Type": {"application/json"}}
	if requestID != "" {
		h.Set("X-Request-ID", requestID)
	}
	if err := s.Sign(h, body, now); err != nil {
		t.Fatal(err)
	}
	return h
}

// The signature is what crypto/rsa verifies over the signing string the
// description's rule 7 builds by hand, and the Digest the SHA-256 of the
// body: checked without the package's own signing-string code.
func TestSignIsTheDescriptionsForm(t *testing.T) {
	s, _ := loadSeal(t)
	body := []byte(`{"accounts":[]}`)
	h := signed(t, s, body, "99391c7e-ad88-49ec-a2ad-99ddcb1f7721")
	sum := sha256.Sum256(body)
	if got, want := h.Get("Digest"), "SHA-256="+base64.StdEncoding.EncodeToString(sum[:]); got != want {
		t.Fatalf("Digest %q, want %q", got, want)
	}
	if got := h.Get("Date"); got != "Wed, 25 Nov 2026 12:00:00 GMT" {
		t.Fatalf("Date %q", got)
	}
	sig := h.Get("Signature")
	prefix := `keyId="` + s.KeyID() + `",algorithm="rsa-sha256",headers="date digest x-request-id",signature="`
	if !strings.HasPrefix(sig, prefix) || !strings.HasSuffix(sig, `"`) {
		t.Fatalf("Signature %q, want the prefix %q", sig, prefix)
	}
	if !strings.HasPrefix(s.KeyID(), "SN="+strings.ToUpper(s.Certificate().SerialNumber.Text(16))+",CA=CN=Test QTSP Issuing CA,O=Test QTSP AS,C=NO") {
		t.Fatalf("keyId %q", s.KeyID())
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSuffix(strings.TrimPrefix(sig, prefix), `"`))
	if err != nil {
		t.Fatal(err)
	}
	ss := "date: " + h.Get("Date") + "\ndigest: " + h.Get("Digest") + "\nx-request-id: 99391c7e-ad88-49ec-a2ad-99ddcb1f7721"
	hash := sha256.Sum256([]byte(ss))
	if err := rsa.VerifyPKCS1v15(s.Certificate().PublicKey.(*rsa.PublicKey), crypto.SHA256, hash[:], raw); err != nil {
		t.Fatalf("crypto/rsa does not verify the signature over %q: %v", ss, err)
	}
	der, _ := base64.StdEncoding.DecodeString(h.Get(CertificateHeader))
	if string(der) != string(s.Certificate().Raw) {
		t.Fatalf("%s is not the seal certificate", CertificateHeader)
	}
}

// Without an X-Request-ID (a refusal of a request that had none) the
// signature covers date and digest.
func TestSignWithoutRequestID(t *testing.T) {
	s, _ := loadSeal(t)
	h := signed(t, s, nil, "")
	if !strings.Contains(h.Get("Signature"), `headers="date digest"`) {
		t.Fatalf("Signature %q", h.Get("Signature"))
	}
	if h.Get("Digest") != "SHA-256=47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=" {
		t.Fatalf("Digest of the empty body %q", h.Get("Digest"))
	}
}

func TestSignRefusesTwoRequestIDs(t *testing.T) {
	s, _ := loadSeal(t)
	h := http.Header{"X-Request-Id": {"a", "b"}}
	if err := s.Sign(h, nil, now); err == nil {
		t.Fatal("signed a response with two X-Request-ID headers")
	}
}

func TestLoadRefusesAMismatchedKey(t *testing.T) {
	certPEM, _ := os.ReadFile("../../testdata/pki/" + testpki.FileBankSeal)
	otherKey, _ := os.ReadFile("../../testdata/pki/tpp-qseal-key.pem")
	if _, err := Load(certPEM, otherKey); err == nil || !strings.Contains(err.Error(), "public key") {
		t.Fatalf("Load with another key: %v", err)
	}
	if _, err := Load(nil, otherKey); err == nil {
		t.Fatal("Load without a certificate")
	}
}

// The TPP side: tppclient's ResponseVerifier accepts what Sign made and
// refuses every alteration.
func TestTPPVerifiesTheSeal(t *testing.T) {
	s, certPEM := loadSeal(t)
	v, err := tppclient.NewResponseVerifier(certPEM)
	if err != nil {
		t.Fatal(err)
	}
	v.Now = func() time.Time { return now.Add(time.Second) }
	const rid = "99391c7e-ad88-49ec-a2ad-99ddcb1f7721"
	body := []byte(`{"transactions":{"booked":[]}}`)
	h := signed(t, s, body, rid)
	cert, err := v.Verify(h, body, rid)
	if err != nil || cert.Subject.Organization[0] != "Test Bank AS" {
		t.Fatalf("Verify: %v, %v", cert, err)
	}

	tppSeal, _ := os.ReadFile("../../testdata/pki/tpp-qseal.pem")
	tppKey, _ := os.ReadFile("../../testdata/pki/tpp-qseal-key.pem")
	other, err := Load(tppSeal, tppKey)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		header func() http.Header
		body   []byte
		rid    string
		want   string
	}{
		{"body altered", func() http.Header { return signed(t, s, body, rid) }, []byte(`{"transactions":{"booked":[{}]}}`), rid, "Digest does not match"},
		{"digest replaced", func() http.Header {
			h := signed(t, s, body, rid)
			sum := sha256.Sum256([]byte("x"))
			h.Set("Digest", "SHA-256="+base64.StdEncoding.EncodeToString(sum[:]))
			return h
		}, []byte("x"), rid, "does not verify"},
		{"another request's answer", func() http.Header { return signed(t, s, body, "5f1b5b5e-1d2c-4a57-9f5a-0e4a7f3f2a11") }, body, rid, "X-Request-ID"},
		{"unsigned", func() http.Header { return http.Header{"Digest": {"SHA-256=x"}} }, body, rid, tppclient.ErrUnsigned.Error()},
		{"signed by someone else", func() http.Header {
			h := http.Header{"X-Request-Id": {rid}}
			if err := other.Sign(h, body, now); err != nil {
				t.Fatal(err)
			}
			return h
		}, body, rid, "names no trusted bank certificate"},
		{"certificate header swapped", func() http.Header {
			h := signed(t, s, body, rid)
			h.Set(CertificateHeader, other.certHeader)
			return h
		}, body, rid, "not the trusted bank certificate"},
		{"stale", func() http.Header {
			h := http.Header{"X-Request-Id": {rid}}
			if err := s.Sign(h, body, now.Add(-time.Hour)); err != nil {
				t.Fatal(err)
			}
			return h
		}, body, rid, "from now"},
		{"x-request-id not covered", func() http.Header {
			h := signed(t, s, body, "")
			h.Set("X-Request-ID", rid)
			return h
		}, body, rid, "does not cover x-request-id"},
		{"two signatures", func() http.Header {
			h := signed(t, s, body, rid)
			h.Add("Signature", h.Get("Signature"))
			return h
		}, body, rid, "2 Signature headers"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := v.Verify(c.header(), c.body, c.rid)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Verify: %v, want an error with %q", err, c.want)
			}
			if c.want == tppclient.ErrUnsigned.Error() && !errors.Is(err, tppclient.ErrUnsigned) {
				t.Fatalf("Verify: %v is not ErrUnsigned", err)
			}
		})
	}
}

func TestResponseVerifierNeedsACertificate(t *testing.T) {
	if _, err := tppclient.NewResponseVerifier(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: []byte{1}})); err == nil {
		t.Fatal("a verifier without a certificate")
	}
}

// BenchmarkSign is the cost a signed response adds: Digest of a 2 KiB body
// and the signature, with the RSA-2048 seal and with the P-256 one.
func BenchmarkSign(b *testing.B) {
	for _, seal := range []struct{ name, cert, key string }{
		{"rsa2048", testpki.FileBankSeal, testpki.FileBankSealKey},
		{"p256", testpki.FileBankSealEC, testpki.FileBankSealECKey},
	} {
		b.Run(seal.name, func(b *testing.B) {
			s, _ := loadSealFiles(b, seal.cert, seal.key)
			body := []byte(strings.Repeat("x", 2048))
			b.ReportAllocs()
			for b.Loop() {
				h := http.Header{"X-Request-Id": {"99391c7e-ad88-49ec-a2ad-99ddcb1f7721"}, "Date": {"Wed, 25 Nov 2026 12:00:00 GMT"}}
				if err := s.Sign(h, body, now); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestECDSASeal: a seal with a P-256 key signs ecdsa-sha256 (the algorithm
// its certificate's key makes), an ASN.1 DER signature crypto/ecdsa
// verifies over the signing string built by hand; a TPP's verifier
// pinning that certificate accepts the answer and refuses it changed, or
// labelled rsa-sha256.
func TestECDSASeal(t *testing.T) {
	s, certPEM := loadSealFiles(t, testpki.FileBankSealEC, testpki.FileBankSealECKey)
	if s.Algorithm() != "ecdsa-sha256" {
		t.Fatalf("algorithm %q", s.Algorithm())
	}
	body := []byte(`{"accounts":[]}`)
	const rid = "99391c7e-ad88-49ec-a2ad-99ddcb1f7721"
	h := signed(t, s, body, rid)
	sig := h.Get("Signature")
	prefix := `keyId="` + s.KeyID() + `",algorithm="ecdsa-sha256",headers="date digest x-request-id",signature="`
	if !strings.HasPrefix(sig, prefix) {
		t.Fatalf("Signature %q, want the prefix %q", sig, prefix)
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSuffix(strings.TrimPrefix(sig, prefix), `"`))
	if err != nil {
		t.Fatal(err)
	}
	ss := "date: " + h.Get("Date") + "\ndigest: " + h.Get("Digest") + "\nx-request-id: " + rid
	hash := sha256.Sum256([]byte(ss))
	if !ecdsa.VerifyASN1(s.Certificate().PublicKey.(*ecdsa.PublicKey), hash[:], raw) {
		t.Fatalf("crypto/ecdsa does not verify the signature over %q", ss)
	}
	// Deterministic (RFC 6979): the same answer signs the same.
	if again := signed(t, s, body, rid); again.Get("Signature") != sig {
		t.Errorf("the same answer signed twice: %q and %q", sig, again.Get("Signature"))
	}
	v, err := tppclient.NewResponseVerifier(certPEM)
	if err != nil {
		t.Fatal(err)
	}
	v.Now = func() time.Time { return now }
	if _, err := v.Verify(h, body, rid); err != nil {
		t.Fatalf("the TPP's verifier: %v", err)
	}
	if _, err := v.Verify(h, []byte(`{"accounts":[1]}`), rid); err == nil {
		t.Error("a changed body verified")
	}
	relabelled := h.Clone()
	relabelled.Set("Signature", strings.Replace(sig, "ecdsa-sha256", "rsa-sha256", 1))
	if _, err := v.Verify(relabelled, body, rid); err == nil {
		t.Error("an ECDSA signature labelled rsa-sha256 verified")
	}
	// A key on another curve is no seal.
	other, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	der, _ := x509.MarshalPKCS8PrivateKey(other)
	if _, err := Load(certPEM, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})); err == nil || !strings.Contains(err.Error(), "P-256") {
		t.Errorf("a P-384 key: %v", err)
	}
}

// goSigner hides a key's type from New, so that it signs through
// crypto/rsa: the reference TestOpenSSLSealIsGos compares with.
type goSigner struct{ crypto.Signer }

// TestOpenSSLSealIsGos: the RSA seal read from a file signs through
// OpenSSL when this build has it (and through crypto/rsa otherwise), and
// its answers' headers are byte for byte those of the same seal signing
// through crypto/rsa; the P-256 seal signs through crypto/ecdsa.
func TestOpenSSLSealIsGos(t *testing.T) {
	s, _ := loadSealFiles(t, testpki.FileBankSeal, testpki.FileBankSealKey)
	want := SignerGo
	if opensslrsa.Available {
		want = SignerOpenSSL
	}
	if s.Signer() != want {
		t.Fatalf("the RSA seal signs through %q, want %q", s.Signer(), want)
	}
	ec, _ := loadSealFiles(t, testpki.FileBankSealEC, testpki.FileBankSealECKey)
	if ec.Signer() != SignerGo {
		t.Fatalf("the P-256 seal signs through %q", ec.Signer())
	}
	keyPEM, err := os.ReadFile("../../testdata/pki/" + testpki.FileBankSealKey)
	if err != nil {
		t.Fatal(err)
	}
	key, err := pemfile.PrivateKey(keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := New(s.Certificate(), goSigner{key})
	if err != nil {
		t.Fatal(err)
	}
	if ref.Signer() != SignerKey {
		t.Fatalf("the reference signs through %q", ref.Signer())
	}
	for i, body := range []string{"", `{"accounts":[]}`, strings.Repeat("é", 3000)} {
		h1 := http.Header{"X-Request-Id": {"99391c7e-ad88-49ec-a2ad-99ddcb1f7721"}}
		h2 := h1.Clone()
		if err := s.Sign(h1, []byte(body), now.Add(time.Duration(i)*time.Second)); err != nil {
			t.Fatal(err)
		}
		if err := ref.Sign(h2, []byte(body), now.Add(time.Duration(i)*time.Second)); err != nil {
			t.Fatal(err)
		}
		if h1.Get("Signature") == "" || h1.Get("Signature") != h2.Get("Signature") {
			t.Fatalf("answer %d: Signature\n%s\nwith crypto/rsa\n%s", i, h1.Get("Signature"), h2.Get("Signature"))
		}
	}
}
