package gateway

import (
	"bytes"
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/obgw/obgw/bgerror"
	"github.com/obgw/obgw/gateway/eidas"
	"github.com/obgw/obgw/gateway/registry"
	"github.com/obgw/obgw/gateway/replay"
	"github.com/obgw/obgw/testpki"
	"github.com/obgw/obgw/tppcontext"
)

var pkiDir = filepath.Join("..", "testdata", "pki")

type fixture struct {
	pki *testpki.PKI
	v   *Verifier
	now time.Time
	reg *failingSource
}

// failingSource wraps the file register and can be switched off.
type failingSource struct {
	inner registry.Source
	down  bool
}

func (f *failingSource) Lookup(ctx context.Context, id string) (*registry.Entry, error) {
	if f.down {
		return nil, errors.New("register unreachable")
	}
	return f.inner.Lookup(ctx, id)
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	p, err := testpki.Load(pkiDir)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(pkiDir, "qtsp-cas.pem"))
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(raw)
	file, err := registry.LoadFile(filepath.Join(pkiDir, "registry.json"))
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{pki: p, now: time.Now()}
	f.reg = &failingSource{inner: file}
	reg, _ := registry.NewCache(f.reg, registry.CacheConfig{MaxStale: -1})
	iss, _ := tppcontext.NewIssuer(bytes.Repeat([]byte{1}, 32))
	f.v, err = NewVerifier(Config{
		Certificates: &eidas.Verifier{Roots: pool},
		Registry:     reg,
		Replay:       replay.NewMemory(),
		Issuer:       iss,
		Now:          func() time.Time { return f.now },
	})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// sign builds a signed request independently of the verifier's packages.
func (f *fixture) sign(t testing.TB, tpp, method, target string, body []byte, extra map[string]string) *Request {
	t.Helper()
	r, _ := http.NewRequest(method, "https://bank.example"+target, bytes.NewReader(body))
	r.RequestURI = target
	kp := f.pki.TPP(tpp).Seal
	r.Header.Set("Date", f.now.UTC().Format(http.TimeFormat))
	r.Header.Set("X-Request-ID", randomUUID())
	r.Header.Set("TPP-Redirect-URI", "https://tpp.example.no/cb")
	r.Header.Set("TPP-Signature-Certificate", base64.StdEncoding.EncodeToString(kp.Certificate.Raw))
	headers := []string{"date", "x-request-id", "tpp-redirect-uri"}
	if len(body) > 0 {
		sum := sha256.Sum256(body)
		r.Header.Set("Digest", "SHA-256="+base64.StdEncoding.EncodeToString(sum[:]))
		r.Header.Set("Content-Type", "application/json")
		headers = append(headers, "digest")
	}
	for k, v := range extra {
		r.Header.Set(k, v)
		if k == "PSU-ID" {
			headers = append(headers, "psu-id")
		}
	}
	var lines []string
	for _, h := range headers {
		lines = append(lines, h+": "+r.Header.Get(h))
	}
	sum := sha256.Sum256([]byte(strings.Join(lines, "\n")))
	sig, err := rsa.SignPKCS1v15(rand.Reader, kp.Key, crypto.SHA256, sum[:])
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("Signature", `keyId="`+kp.KeyID()+`",algorithm="rsa-sha256",headers="`+strings.Join(headers, " ")+`",signature="`+base64.StdEncoding.EncodeToString(sig)+`"`)
	return &Request{HTTP: r, Body: body}
}

func randomUUID() string {
	b := make([]byte, 16)
	rand.Read(b)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := make([]byte, 32)
	const hexd = "0123456789abcdef"
	for i, c := range b {
		h[2*i], h[2*i+1] = hexd[c>>4], hexd[c&15]
	}
	s := string(h)
	return s[:8] + "-" + s[8:12] + "-" + s[12:16] + "-" + s[16:20] + "-" + s[20:]
}

func TestVerifyPassesAndIssuesToken(t *testing.T) {
	f := newFixture(t)
	r := f.sign(t, "tpp", "POST", "/v1/payments/sepa-credit-transfers", []byte(`{"a":1}`), map[string]string{"PSU-ID": randomUUID()})
	o := f.v.Verify(context.Background(), r, &Policy{RequiredRole: "PSP_PI"})
	if o.Err != nil {
		t.Fatal(o.Err)
	}
	for _, c := range []Check{CheckHygiene, CheckDate, CheckCertificate, CheckRegistry, CheckRole, CheckSignature, CheckDigest, CheckReplay} {
		if o.Decision(c) != DecisionPass {
			t.Errorf("%s: %s", c, o.Decision(c))
		}
	}
	if o.Decision(CheckQWAC) != DecisionSkip {
		t.Errorf("qwac: %s", o.Decision(CheckQWAC))
	}
	ver, _ := tppcontext.NewVerifier(bytes.Repeat([]byte{1}, 32))
	ctx, err := ver.Verify(o.Token, f.now)
	if err != nil || ctx.TPP != "PSDNO-FSA-987654321" || ctx.PSUPresent {
		t.Fatalf("%+v %v", ctx, err)
	}
}

func TestVerifyCertificateCacheAndKeyIDReuse(t *testing.T) {
	f := newFixture(t)
	for i := 0; i < 3; i++ {
		r := f.sign(t, "tpp", "GET", "/v1/accounts", nil, nil)
		if o := f.v.Verify(context.Background(), r, &Policy{}); o.Err != nil {
			t.Fatal(o.Err)
		}
	}
	if f.v.certs.Len() != 1 || f.v.certDER.Len() != 1 {
		t.Fatalf("cache holds %d/%d entries", f.v.certs.Len(), f.v.certDER.Len())
	}
	// A keyId naming another certificate must fail even after the cached
	// keyId matched once.
	r := f.sign(t, "tpp", "GET", "/v1/accounts", nil, nil)
	sig := r.HTTP.Header.Get("Signature")
	other := f.pki.TPP("aisp").Seal.KeyID()
	r.HTTP.Header.Set("Signature", `keyId="`+other+sig[strings.Index(sig, `",algorithm`):])
	if o := f.v.Verify(context.Background(), r, &Policy{}); o.Err == nil || o.Err.Code != "SIGNATURE_INVALID" {
		t.Fatalf("%v", o.Err)
	}
}

func TestVerifyRegistryOnError(t *testing.T) {
	f := newFixture(t)
	f.reg.down = true
	r := f.sign(t, "tpp", "GET", "/v1/accounts", nil, nil)
	o := f.v.Verify(context.Background(), r, &Policy{})
	if o.Err == nil || o.Err.Code != "SERVICE_UNAVAILABLE" || o.Err.Status != 503 {
		t.Fatalf("deny: %v", o.Err)
	}
	r = f.sign(t, "tpp", "GET", "/v1/accounts", nil, nil)
	o = f.v.Verify(context.Background(), r, &Policy{RegistryOnError: OnErrorAllow, RequiredRole: "PSP_AI"})
	if o.Err != nil || o.Decision(CheckRegistry) != DecisionErrorAllowed {
		t.Fatalf("allow: %v %s", o.Err, o.Decision(CheckRegistry))
	}
}

func TestVerifyReportOnly(t *testing.T) {
	f := newFixture(t)
	r := f.sign(t, "aisp", "GET", "/v1/payments/x", nil, nil)
	p := &Policy{RequiredRole: "PSP_PI"}
	p.Modes[CheckRole] = ModeReportOnly
	o := f.v.Verify(context.Background(), r, p)
	if o.Err != nil || o.Decision(CheckRole) != DecisionReport {
		t.Fatalf("%v %s", o.Err, o.Decision(CheckRole))
	}
	if len(o.Context.Unverified) != 1 || o.Context.Unverified[0] != "role" {
		t.Fatalf("%v", o.Context.Unverified)
	}
	// Enforce mode rejects the same request.
	r = f.sign(t, "aisp", "GET", "/v1/payments/x", nil, nil)
	if o := f.v.Verify(context.Background(), r, &Policy{RequiredRole: "PSP_PI"}); o.Err == nil || o.Err.Code != "ROLE_INVALID" {
		t.Fatalf("%v", o.Err)
	}
}

// registryRoles answers every lookup with an authorised entry granting
// roles.
type registryRoles []string

func (rr registryRoles) Lookup(_ context.Context, id string) (*registry.Entry, error) {
	return &registry.Entry{OrganizationIdentifier: id, Roles: rr, Status: registry.StatusAuthorised}, nil
}

// A route naming no role still refuses a TPP to which the certificate and
// the register grant no PSD2 role in common.
func TestVerifyNoCommonRole(t *testing.T) {
	f := newFixture(t)
	f.reg.inner = registryRoles{"PSP_IC"} // the aisp certificate says PSP_AI
	r := f.sign(t, "aisp", "GET", "/v1/tpp-contacts", nil, nil)
	if o := f.v.Verify(context.Background(), r, &Policy{}); o.Err == nil || o.Err.Code != "ROLE_INVALID" || o.Decision(CheckRole) != DecisionFail {
		t.Fatalf("no common role: %v %s", o.Err, o.Decision(CheckRole))
	}
	f = newFixture(t)
	f.reg.inner = registryRoles{"PSP_AI"}
	r = f.sign(t, "aisp", "GET", "/v1/tpp-contacts", nil, nil)
	if o := f.v.Verify(context.Background(), r, &Policy{}); o.Err != nil || o.Decision(CheckRole) != DecisionPass {
		t.Fatalf("a common role: %v %s", o.Err, o.Decision(CheckRole))
	}
}

func TestVerifyDigestOptional(t *testing.T) {
	f := newFixture(t)
	r := f.sign(t, "tpp", "POST", "/v1/signing-baskets", []byte(`{"paymentIds":["a"]}`), nil)
	r.HTTP.Header.Del("Digest")
	// Signature covers digest, which is now absent: still a signature error.
	if o := f.v.Verify(context.Background(), r, &Policy{DigestOptional: true}); o.Err == nil || o.Err.Code != "SIGNATURE_INVALID" {
		t.Fatalf("%v", o.Err)
	}
}

func TestAcceptAndMediaType(t *testing.T) {
	for _, tc := range []struct {
		accept string
		ok     bool
	}{{"application/json", true}, {"*/*", true}, {"application/xml, application/json;q=0.5", true}, {"application/xml", false}, {"application/json;q=0", false}, {"text/html, application/*", true}} {
		h := http.Header{"Accept": {tc.accept}}
		if got := checkAccept(h) == nil; got != tc.ok {
			t.Errorf("Accept %q: ok=%v", tc.accept, got)
		}
	}
	for _, tc := range []struct {
		ct string
		ok bool
	}{{"application/json", true}, {"application/json; charset=utf-8", true}, {"application/json; charset=latin1", false}, {"application/problem+json", true}, {"text/plain", false}, {"", false}} {
		if got := isJSONMediaType(tc.ct); got != tc.ok {
			t.Errorf("Content-Type %q: ok=%v", tc.ct, got)
		}
	}
}

// BenchmarkVerifyWarm is the whole pipeline for a typical signed GET with a
// warm certificate and register cache; compare with BenchmarkRSAVerify2048.
func BenchmarkVerifyWarm(b *testing.B) {
	f, p, reqs := warmPipeline(b, false)
	b.ReportAllocs()
	b.ResetTimer()
	i := 1
	for b.Loop() {
		o := f.v.Verify(context.Background(), reqs[i%len(reqs)], p)
		if o.Err != nil {
			b.Fatal(o.Err)
		}
		i++
	}
}

// warmPipeline returns a verifier, the policy of a transactions route and
// 2048 distinct signed GETs (distinct X-Request-IDs: replay is real), with
// the certificate and register caches warmed by the first.
func warmPipeline(b *testing.B, timed bool) (*fixture, *Policy, []*Request) {
	f := newFixture(b)
	p := &Policy{RequiredRole: "PSP_AI", RequiredHeaders: []string{"Tpp-Redirect-Uri"}}
	reqs := make([]*Request, 2048)
	for i := range reqs {
		reqs[i] = f.sign(b, "tpp", "GET", "/v1/accounts/enc!!abc/transactions?bookingStatus=booked", nil, map[string]string{"PSU-ID": randomUUID()})
		reqs[i].Timed = timed
	}
	f.v.replayTT = time.Nanosecond // let request ids be reused across laps
	if o := f.v.Verify(context.Background(), reqs[0], p); o.Err != nil {
		b.Fatal(o.Err)
	}
	return f, p, reqs
}

// BenchmarkVerifyWarmPerCheck is BenchmarkVerifyWarm with each check
// timed (as when a trace span records), reported as <check>-ns/op.
func BenchmarkVerifyWarmPerCheck(b *testing.B) {
	f, p, reqs := warmPipeline(b, true)
	var total [NumChecks]time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	i := 1
	for b.Loop() {
		o := f.v.Verify(context.Background(), reqs[i%len(reqs)], p)
		if o.Err != nil {
			b.Fatal(o.Err)
		}
		for c, d := range o.Timings {
			total[c] += d
		}
		i++
	}
	for _, c := range Checks() {
		b.ReportMetric(float64(total[c].Nanoseconds())/float64(b.N), c.String()+"-ns/op")
	}
}

// BenchmarkRSAVerify2048 is bare RSA-2048 PKCS#1 v1.5 verification, the
// floor the pipeline is measured against.
func BenchmarkRSAVerify2048(b *testing.B) {
	f := newFixture(b)
	kp := f.pki.TPP("tpp").Seal
	sum := sha256.Sum256([]byte("date: x\nx-request-id: y"))
	sig, _ := rsa.SignPKCS1v15(rand.Reader, kp.Key, crypto.SHA256, sum[:])
	pub := kp.Key.Public().(*rsa.PublicKey)
	b.ReportAllocs()
	for b.Loop() {
		if err := rsa.VerifyPKCS1v15(pub, crypto.SHA256, sum[:], sig); err != nil {
			b.Fatal(err)
		}
	}
}

func TestVerifySignedHostHeader(t *testing.T) {
	f := newFixture(t)
	r := f.sign(t, "tpp", "GET", "/v1/accounts", nil, nil)
	r.HTTP.Host = "bank.example"
	kp := f.pki.TPP("tpp").Seal
	lines := "host: bank.example\ndate: " + r.HTTP.Header.Get("Date") + "\nx-request-id: " + r.HTTP.Header.Get("X-Request-ID") + "\ntpp-redirect-uri: " + r.HTTP.Header.Get("TPP-Redirect-URI")
	sum := sha256.Sum256([]byte(lines))
	sig, _ := rsa.SignPKCS1v15(rand.Reader, kp.Key, crypto.SHA256, sum[:])
	r.HTTP.Header.Set("Signature", `keyId="`+kp.KeyID()+`",algorithm="rsa-sha256",headers="host date x-request-id tpp-redirect-uri",signature="`+base64.StdEncoding.EncodeToString(sig)+`"`)
	if o := f.v.Verify(context.Background(), r, &Policy{}); o.Err != nil {
		t.Fatal(o.Err)
	}
	if _, ok := r.HTTP.Header["Host"]; ok {
		t.Fatal("the request's own header map was changed")
	}
	// Another Host than the one signed fails.
	r2 := f.sign(t, "tpp", "GET", "/v1/accounts", nil, nil)
	r2.HTTP.Host = "evil.example"
	r2.HTTP.Header.Set("Signature", r.HTTP.Header.Get("Signature"))
	r2.HTTP.Header.Set("Date", r.HTTP.Header.Get("Date"))
	r2.HTTP.Header.Set("X-Request-ID", r.HTTP.Header.Get("X-Request-ID"))
	if o := f.v.Verify(context.Background(), r2, &Policy{}); o.Err == nil || o.Err.Code != "SIGNATURE_INVALID" {
		t.Fatalf("%v", o.Err)
	}
}

// TestCertificateCacheResistsFlooding: refused certificates cannot evict
// verified ones, and a verified certificate in other whitespace is found by
// its DER without a new chain verification.
func TestCertificateCacheResistsFlooding(t *testing.T) {
	f := newFixture(t)
	r := f.sign(t, "tpp", "GET", "/v1/accounts", nil, nil)
	if o := f.v.Verify(context.Background(), r, &Policy{}); o.Err != nil {
		t.Fatal(o.Err)
	}
	for i := 0; i < 3000; i++ {
		h := http.Header{"Tpp-Signature-Certificate": {fmt.Sprintf("garbage%d", i)}}
		if _, e := f.v.certificate(h, f.now); e == nil {
			t.Fatal("garbage accepted")
		}
	}
	if f.v.certs.Len() != 1 {
		t.Fatalf("verified cache has %d entries after a flood of garbage", f.v.certs.Len())
	}
	// The same certificate with line breaks: a DER hit, same entry.
	raw := r.HTTP.Header.Get("Tpp-Signature-Certificate")
	folded := raw[:64] + "\n" + raw[64:]
	first, _ := f.v.certificate(http.Header{"Tpp-Signature-Certificate": {raw}}, f.now)
	again, e := f.v.certificate(http.Header{"Tpp-Signature-Certificate": {folded}}, f.now)
	if e != nil || again != first {
		t.Fatalf("variant not served from the DER cache: %v", e)
	}
}

func TestVerifyTimesChecksOnlyWhenAsked(t *testing.T) {
	f := newFixture(t)
	r := f.sign(t, "tpp", "GET", "/v1/accounts", nil, nil)
	o := f.v.Verify(context.Background(), r, &Policy{})
	if !o.Start.IsZero() || o.Timings[CheckSignature] != 0 {
		t.Fatal("timed without being asked")
	}
	r = f.sign(t, "tpp", "GET", "/v1/accounts", nil, nil)
	r.Timed = true
	o = f.v.Verify(context.Background(), r, &Policy{})
	if o.Err != nil || o.Start.IsZero() || o.Timings[CheckSignature] <= 0 {
		t.Fatalf("timings %v %v", o.Timings, o.Err)
	}
	var sum time.Duration
	for _, d := range o.Timings {
		sum += d
	}
	if o.End.Before(o.Start.Add(sum)) {
		t.Fatalf("the pipeline ended at %s, before its checks' %s", o.End.Sub(o.Start), sum)
	}

	// A refused request: the check that stopped the pipeline has no lap of
	// its own; End says when it stopped.
	r = f.sign(t, "tpp", "GET", "/v1/accounts", nil, nil)
	r.HTTP.Header.Set("Signature", strings.Replace(r.HTTP.Header.Get("Signature"), `signature="`, `signature="AAAA`, 1))
	r.Timed = true
	o = f.v.Verify(context.Background(), r, &Policy{})
	if o.Decision(CheckSignature) != DecisionFail || o.Timings[CheckSignature] != 0 || o.End.IsZero() {
		t.Fatalf("refused: %v %v %v", o.Decisions, o.Timings, o.End)
	}
}

// BenchmarkVerifyKeySizes is the warm pipeline with RSA-3072 and RSA-4096
// TPP keys (reported, not targeted).
func BenchmarkVerifyKeySizes(b *testing.B) {
	for _, tpp := range []string{"tpp", "rsa3072", "rsa4096"} {
		b.Run(tpp, func(b *testing.B) {
			f := newFixture(b)
			const n = 256
			reqs := make([]*Request, n)
			for i := range reqs {
				reqs[i] = f.sign(b, tpp, "GET", "/v1/accounts", nil, nil)
			}
			f.v.replayTT = time.Nanosecond
			p := &Policy{}
			if o := f.v.Verify(context.Background(), reqs[0], p); o.Err != nil {
				b.Fatal(o.Err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			i := 1
			for b.Loop() {
				if o := f.v.Verify(context.Background(), reqs[i%n], p); o.Err != nil {
					b.Fatal(o.Err)
				}
				i++
			}
		})
	}
}

// BenchmarkVerifyCertificateMiss is the pipeline when the certificate is
// not cached (a TPP's first request, or after the cache TTL): parse, chain,
// QCStatements, CRL.
func BenchmarkVerifyCertificateMiss(b *testing.B) {
	f := newFixture(b)
	r := f.sign(b, "tpp", "GET", "/v1/accounts", nil, nil)
	f.v.replayTT = time.Nanosecond
	b.ReportAllocs()
	for b.Loop() {
		f.v.certs.Purge()
		f.v.certDER.Purge()
		if o := f.v.Verify(context.Background(), r, &Policy{}); o.Err != nil {
			b.Fatal(o.Err)
		}
	}
}

// registryRedirects answers every lookup with an authorised entry that
// registered hosts for its redirect URIs.
type registryRedirects []string

func (rr registryRedirects) Lookup(_ context.Context, id string) (*registry.Entry, error) {
	return &registry.Entry{OrganizationIdentifier: id, Roles: []string{"PSP_AI", "PSP_PI"}, Status: registry.StatusAuthorised, RedirectHosts: rr}, nil
}

// A TPP that registered its redirect hosts cannot send the PSU elsewhere;
// one that registered none keeps any https URI it signs.
func TestVerifyRegisteredRedirectHosts(t *testing.T) {
	for _, tc := range []struct {
		hosts []string
		ok    bool
	}{{nil, true}, {[]string{"*.example.no"}, true}, {[]string{"TPP.example.no"}, true}, {[]string{"example.no"}, false}, {[]string{"bank.example", "*.tpp.example.no"}, false}} {
		f := newFixture(t)
		f.reg.inner = registryRedirects(tc.hosts)
		r := f.sign(t, "tpp", "GET", "/v1/accounts", nil, nil) // TPP-Redirect-URI https://tpp.example.no/cb
		o := f.v.Verify(context.Background(), r, &Policy{})
		if tc.ok && o.Err != nil {
			t.Errorf("hosts %v: %v", tc.hosts, o.Err)
		}
		if !tc.ok && (o.Err == nil || o.Err.Code != "FORMAT_ERROR" || o.Err.Path != "TPP-Redirect-URI" || o.Decision(CheckRegistry) != DecisionFail) {
			t.Errorf("hosts %v: %v %s", tc.hosts, o.Err, o.Decision(CheckRegistry))
		}
	}
}

// The body is read only once certificate, signature, register, role and
// replay have passed: an unsigned or replayed request is answered without
// it.
func TestVerifyReadsBodyOnlyWhenAuthenticated(t *testing.T) {
	f := newFixture(t)
	body := []byte(`{"a":1}`)
	reads := 0
	lazy := func(r *Request) *Request {
		b := r.Body
		r.Body = nil
		r.ReadBody = func(tpp string) ([]byte, *bgerror.Error) {
			if tpp != "PSDNO-FSA-987654321" {
				t.Errorf("the body read counts against %q, not the signer", tpp)
			}
			reads++
			return b, nil
		}
		return r
	}
	r := lazy(f.sign(t, "tpp", "POST", "/v1/payments/x", body, nil))
	r.HTTP.Header.Set("Signature", strings.Replace(r.HTTP.Header.Get("Signature"), `signature="`, `signature="AAAA`, 1))
	if o := f.v.Verify(context.Background(), r, &Policy{}); o.Err == nil || reads != 0 {
		t.Fatalf("a bad signature: %v, body read %d times", o.Err, reads)
	}
	r = lazy(f.sign(t, "tpp", "POST", "/v1/payments/x", body, nil))
	if o := f.v.Verify(context.Background(), r, &Policy{}); o.Err != nil || reads != 1 || !bytes.Equal(r.Body, body) || o.Decision(CheckDigest) != DecisionPass {
		t.Fatalf("a signed request: %v, body read %d times", o.Err, reads)
	}
	r.Body = nil
	if o := f.v.Verify(context.Background(), r, &Policy{}); o.Err == nil || reads != 1 {
		t.Fatalf("a replay: %v, body read %d times", o.Err, reads)
	}
	// The JSON rules apply to the body read.
	r = lazy(f.sign(t, "tpp", "POST", "/v1/payments/x", []byte(`{"a":1,"a":2}`), nil))
	if o := f.v.Verify(context.Background(), r, &Policy{}); o.Err == nil || o.Err.Code != "FORMAT_ERROR" || o.Decision(CheckHygiene) != DecisionFail {
		t.Fatalf("a duplicate key in a body read later: %v", o.Err)
	}
}

// Headers over MaxHeaderBytes get a Berlin Group 431, not the server's
// bare one.
func TestVerifyHeaderBlockBound(t *testing.T) {
	f := newFixture(t)
	r := f.sign(t, "tpp", "GET", "/v1/accounts", nil, nil)
	r.HTTP.Header.Set("X-Padding", strings.Repeat("p", MaxHeaderBytes))
	o := f.v.Verify(context.Background(), r, &Policy{})
	if o.Err == nil || o.Err.Status != http.StatusRequestHeaderFieldsTooLarge || o.Err.Code != "FORMAT_ERROR" {
		t.Fatalf("%+v", o.Err)
	}
	r.HTTP.Header.Set("X-Padding", strings.Repeat("p", 1000))
	if o := f.v.Verify(context.Background(), r, &Policy{}); o.Err != nil {
		t.Fatalf("a small header block: %v", o.Err)
	}
}
