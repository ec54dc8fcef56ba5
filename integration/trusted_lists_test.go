package integration

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/obgw/obgw/gateway/trustlist/tltest"
	"github.com/obgw/obgw/testpki"
	"github.com/obgw/obgw/tppclient"
)

// listSigner is a key and self-signed certificate that signs a trusted
// list.
type listSigner struct {
	key  crypto.Signer
	cert *x509.Certificate
}

func newListSigner(t *testing.T, name string) *listSigner {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().AddDate(-1, 0, 0), NotAfter: time.Now().AddDate(5, 0, 0), KeyUsage: x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := x509.ParseCertificate(der)
	return &listSigner{key: key, cert: c}
}

// listsServer serves a LOTL and Norway's list over https with the
// production PKI's server certificate.
type listsServer struct {
	srv  *httptest.Server
	mu   sync.Mutex
	docs map[string][]byte
	gets map[string]int
}

func newListsServer(t *testing.T) *listsServer {
	t.Helper()
	s := &listsServer{docs: map[string][]byte{}, gets: map[string]int{}}
	s.srv = productionTLSServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.gets[r.URL.Path]++
		if d, ok := s.docs[r.URL.Path]; ok {
			w.Write(d)
			return
		}
		http.NotFound(w, r)
	}))
	return s
}

func (s *listsServer) fetches(path string) int { s.mu.Lock(); defer s.mu.Unlock(); return s.gets[path] }

func (s *listsServer) url(path string) string { return localhostURL(s.srv, path) }

// publish signs a LOTL (by lotl) pointing at Norway's list (by no),
// which holds the production PKI's issuing CA with history, and serves
// both.
func (s *listsServer) publish(t *testing.T, lotl, no *listSigner, nextUpdate time.Time, history []tltest.Status) {
	t.Helper()
	issued := time.Now().Add(-time.Hour).UTC().Truncate(time.Second)
	l, err := tltest.Sign(tltest.List{Territory: "EU", Sequence: 400, Issued: issued, NextUpdate: issued.AddDate(0, 6, 0), Pointers: []tltest.Pointer{
		{Territory: "EU", Location: s.url("/eu-lotl.xml"), Signers: []*x509.Certificate{lotl.cert}},
		{Territory: "NO", Location: s.url("/NO_TL.xml"), Signers: []*x509.Certificate{no.cert}},
	}}, lotl.key, lotl.cert)
	if err != nil {
		t.Fatal(err)
	}
	n, err := tltest.Sign(tltest.List{Territory: "NO", Sequence: 90, Issued: issued, NextUpdate: nextUpdate, Services: []tltest.Service{
		{Name: "Example QTSP Issuing CA", CA: productionPKI.Issuing.Certificate, History: history},
	}}, no.key, no.cert)
	if err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	s.docs["/eu-lotl.xml"], s.docs["/NO_TL.xml"] = l, n
	s.mu.Unlock()
}

func writePEM(t *testing.T, c *x509.Certificate) string {
	path := filepath.Join(t.TempDir(), "signers.pem")
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// askConsentAs asks for a bank-offered consent signed by s.
func askConsentAs(t *testing.T, g *gateway, s *tppclient.Signer) response {
	return askConsentOver(t, g, s, client(nil))
}

// askConsentOver asks for it over c (presenting c's QWAC, if any).
func askConsentOver(t *testing.T, g *gateway, s *tppclient.Signer, c *http.Client) response {
	t.Helper()
	req := newRequest(t, g, http.MethodPost, "/v1/bank-offered-consents", nil)
	req.Header.Set("TPP-Session-ID", uuid.NewString())
	req.Header.Set("TPP-Redirect-URI", "https://tpp.example.no/cb")
	req.Header.Set("PSU-IP-Address", "192.0.2.10")
	if err := s.Sign(req, nil); err != nil {
		t.Fatal(err)
	}
	return send(t, c, req)
}

// TestTrustedListsInProduction (issue 28): a production deployment
// configured only with the EU trusted lists' address (the LOTL, verified
// with the pinned signer, pointing at Norway's list) and the EBA
// register's accepts the registered TPP whose QSealC a CA granted for
// seals issued (with its QWAC in the TLS handshake when the CA is granted
// for websites too), and refuses, each with its Berlin Group code: a QWAC
// of a CA granted for seals only (CERTIFICATE_INVALID), a
// certificate of a CA the lists do not name (CERTIFICATE_INVALID), one of
// a CA granted for e-signatures only (CERTIFICATE_INVALID, saying so),
// one of a CA whose list is past its next update and the grace (503), and
// every one while the LOTL's signer is not the pinned one (503, readiness
// names qtsp_trusted_list).
func TestTrustedListsInProduction(t *testing.T) {
	crl := httptest.NewServer(testpki.NewCRLDistributionPoint(productionPKI.CRL))
	defer crl.Close()
	issue := func(id string) *tppclient.Signer {
		kp, err := productionPKI.IssueTPPCertificate(id, testpki.Seal, testpki.RevocationURLs{CRL: crl.URL + "/issuing.crl"})
		if err != nil {
			t.Fatal(err)
		}
		return &tppclient.Signer{Key: kp.Key, Certificate: kp.Certificate.Raw}
	}
	tpp, impostor := issue("tpp"), issue("untrusted")
	qwac, err := productionPKI.IssueTPPCertificate("tpp", testpki.Web, testpki.RevocationURLs{CRL: crl.URL + "/issuing.crl"})
	if err != nil {
		t.Fatal(err)
	}
	eba := newEBASource(t, ebaExportOf(t))
	lotlSigner, noSigner := newListSigner(t, "Test LOTL signer"), newListSigner(t, "Test NO list signer")
	deploy := func(t *testing.T, lists *listsServer, pinned *listSigner) *gateway {
		t.Helper()
		env := append(ebaEnv(eba.url(), filepath.Join(t.TempDir(), "trust.db")),
			"OBGW_QTSP=trusted-lists", "OBGW_QTSP_TRUSTED_LIST="+lists.url("/eu-lotl.xml"), "OBGW_QTSP_TRUSTED_LIST_SIGNERS="+writePEM(t, pinned.cert))
		return startGateway(t, "Caddyfile", env...)
	}
	waitFor := func(t *testing.T, g *gateway, s *tppclient.Signer, status int) response {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(200 * time.Millisecond) {
			got := askConsentAs(t, g, s)
			if got.status == status || time.Now().After(deadline) {
				return got
			}
		}
	}
	granted := func(uses ...string) []tltest.Status {
		return []tltest.Status{{Status: tltest.Granted, Since: time.Now().AddDate(-5, 0, 0), Uses: uses}}
	}

	t.Run("granted for seals", func(t *testing.T) {
		lists := newListsServer(t)
		lists.publish(t, lotlSigner, noSigner, time.Now().AddDate(0, 6, 0), granted(tltest.Seals, tltest.Web))
		g := deploy(t, lists, lotlSigner)
		if got := waitFor(t, g, tpp, http.StatusCreated); got.status != http.StatusCreated {
			t.Fatalf("the registered TPP: %d %s\n%s", got.status, got.body, g.logs())
		}
		wantCode(t, "a CA the lists do not name", askConsentAs(t, g, impostor), http.StatusUnauthorized, "CERTIFICATE_INVALID")
		if got := askConsentOver(t, g, tpp, client(qwac)); got.status != http.StatusCreated {
			t.Fatalf("with a QWAC of a CA granted for websites: %d %s", got.status, got.body)
		}
		if !strings.Contains(g.logs(), `"msg":"trust source fetched"`) {
			t.Fatalf("the lists' fetch is not logged:\n%s", g.logs())
		}
	})
	t.Run("two instances on PostgreSQL", func(t *testing.T) {
		lists := newListsServer(t)
		lists.publish(t, lotlSigner, noSigner, time.Now().AddDate(0, 6, 0), granted(tltest.Seals))
		db := databaseEnv(t, "postgres")
		env := append(ebaEnv(eba.url(), strings.TrimPrefix(db[0], "OBGW_DATABASE_URL=")), append(db,
			"OBGW_QTSP=trusted-lists", "OBGW_QTSP_TRUSTED_LIST="+lists.url("/eu-lotl.xml"), "OBGW_QTSP_TRUSTED_LIST_SIGNERS="+writePEM(t, lotlSigner.cert))...)
		first, second := startGateway(t, "Caddyfile", env...), startGateway(t, "Caddyfile", env...)
		for _, g := range []*gateway{first, second} {
			if got := waitFor(t, g, tpp, http.StatusCreated); got.status != http.StatusCreated {
				t.Fatalf("the registered TPP: %d %s\n%s", got.status, got.body, g.logs())
			}
		}
		if n := lists.fetches("/eu-lotl.xml"); n != 1 {
			t.Fatalf("two instances fetched the LOTL %d times, want once between them", n)
		}
		m := scrape(t, "http://"+second.health+"/metrics")
		if m[`obgw_trusted_list_next_update_timestamp_seconds{territory="NO"}`] < float64(time.Now().Unix()) || m[`obgw_trust_source_entries{source="qtsp_trusted_list"}`] != 1 {
			t.Fatalf("the trusted lists' metrics: %v", m)
		}
	})
	t.Run("a QWAC of a CA granted for seals only", func(t *testing.T) {
		lists := newListsServer(t)
		lists.publish(t, lotlSigner, noSigner, time.Now().AddDate(0, 6, 0), granted(tltest.Seals))
		g := deploy(t, lists, lotlSigner)
		if got := waitFor(t, g, tpp, http.StatusCreated); got.status != http.StatusCreated {
			t.Fatalf("the seal alone: %d %s", got.status, got.body)
		}
		got := askConsentOver(t, g, tpp, client(qwac))
		wantCode(t, "a QWAC of a CA not granted for websites", got, http.StatusUnauthorized, "CERTIFICATE_INVALID")
		if !strings.Contains(string(got.body), "not qualified for website authentication") {
			t.Fatalf("the refusal does not say why: %s", got.body)
		}
	})
	t.Run("granted for e-signatures only", func(t *testing.T) {
		lists := newListsServer(t)
		lists.publish(t, lotlSigner, noSigner, time.Now().AddDate(0, 6, 0), granted(tltest.Signatures))
		g := deploy(t, lists, lotlSigner)
		got := waitFor(t, g, tpp, http.StatusUnauthorized)
		wantCode(t, "a CA granted for e-signatures only", got, http.StatusUnauthorized, "CERTIFICATE_INVALID")
		if !strings.Contains(string(got.body), "not qualified for electronic seals") {
			t.Fatalf("the refusal does not say why: %s", got.body)
		}
	})
	t.Run("a list past its next update and grace", func(t *testing.T) {
		lists := newListsServer(t)
		lists.publish(t, lotlSigner, noSigner, time.Now().AddDate(0, 0, -30), granted(tltest.Seals))
		g := deploy(t, lists, lotlSigner)
		// Loaded (ready), the lists still refuse the stale territory's CAs.
		for deadline := time.Now().Add(20 * time.Second); internalGet(t, "http://"+g.health+"/readyz").status != http.StatusOK; time.Sleep(100 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("never ready:\n%s", g.logs())
			}
		}
		got := askConsentAs(t, g, tpp)
		wantCode(t, "a stale list", got, http.StatusServiceUnavailable, "SERVICE_UNAVAILABLE")
		if !strings.Contains(string(got.body), "past its next update") {
			t.Fatalf("the refusal does not say why: %s", got.body)
		}
	})
	t.Run("a LOTL by another signer", func(t *testing.T) {
		lists := newListsServer(t)
		lists.publish(t, newListSigner(t, "Rogue"), noSigner, time.Now().AddDate(0, 6, 0), granted(tltest.Seals))
		g := deploy(t, lists, lotlSigner)
		wantCode(t, "lists that do not verify", askConsentAs(t, g, tpp), http.StatusServiceUnavailable, "SERVICE_UNAVAILABLE")
		if got := internalGet(t, "http://"+g.health+"/readyz"); got.status != http.StatusServiceUnavailable || !strings.Contains(string(got.body), "qtsp_trusted_list") {
			t.Fatalf("readiness without lists: %d %s", got.status, got.body)
		}
	})
}
