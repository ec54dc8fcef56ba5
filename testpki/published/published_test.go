package published_test

import (
	"crypto/x509"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/obgw/obgw/pemfile"
	"github.com/obgw/obgw/testpki"
	"github.com/obgw/obgw/testpki/published"
)

// TestTestdataIsPublished: every certificate, key, CRL and TPP of
// testdata/pki is recognised, read from the files.
func TestTestdataIsPublished(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(testdataPKI, "*.pem"))
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if certs, err := pemfile.Certificates(raw); err == nil {
			for _, c := range certs {
				if !published.Certificate(c) {
					t.Errorf("%s: %s not recognised", f, c.Subject)
				}
			}
			continue
		}
		if k, err := pemfile.PrivateKey(raw); err == nil {
			if !published.PublicKey(k.Public()) {
				t.Errorf("%s: key not recognised", f)
			}
		} else if filepath.Base(f) != testpki.FileQTSPCRL {
			t.Errorf("%s: neither certificates nor a key: %v", f, err)
		}
	}
	p, err := testpki.Load(testdataPKI)
	if err != nil {
		t.Fatal(err)
	}
	if !published.CRL(p.CRL) {
		t.Error("testdata's CRL not recognised")
	}
	for _, tpp := range p.TPPs {
		if !published.OrganizationIdentifier(tpp.OrganizationIdentifier) {
			t.Errorf("TPP %s not recognised", tpp.OrganizationIdentifier)
		}
	}
}

// TestGeneratedIsMarked: a PKI the generator makes afresh (new keys, so
// known.go cannot know them) is recognised by its mark, certificate by
// certificate; one made unpublished for production tests is not, nor are
// its TPPs.
func TestGeneratedIsMarked(t *testing.T) {
	now := time.Now()
	marked, err := testpki.Generate(now)
	if err != nil {
		t.Fatal(err)
	}
	unpublished, err := testpki.GenerateUnpublished(now)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		p    *testpki.PKI
		want bool
	}{{"generated", marked, true}, {"unpublished", unpublished, false}} {
		for _, c := range certificates(tt.p) {
			if got := published.Certificate(c); got != tt.want {
				t.Errorf("%s: %s: recognised %v, want %v", tt.name, c.Subject, got, tt.want)
			}
		}
		if published.PublicKey(tt.p.BankSeal.Key.Public()) || published.CRL(tt.p.CRL) {
			t.Errorf("%s: a fresh key or CRL is among testdata's", tt.name)
		}
	}
	for _, tpp := range unpublished.TPPs {
		if published.OrganizationIdentifier(tpp.OrganizationIdentifier) {
			t.Errorf("unpublished TPP %s is a test TPP", tpp.OrganizationIdentifier)
		}
	}
	// The mark is one policy more: the eIDAS policies stay.
	if n := len(marked.TPP("tpp").Seal.Certificate.Policies); n != len(unpublished.TPP("tpp").Seal.Certificate.Policies)+1 {
		t.Errorf("the marked QSealC has %d policies", n)
	}
}

func certificates(p *testpki.PKI) []*x509.Certificate {
	certs := []*x509.Certificate{p.Root.Certificate, p.Issuing.Certificate, p.TLSCA.Certificate, p.Server.Certificate,
		p.GatewayCA.Certificate, p.Gateway.Certificate, p.BankSeal.Certificate, p.BankSealEC.Certificate}
	for _, tpp := range p.TPPs {
		certs = append(certs, tpp.Seal.Certificate, tpp.Web.Certificate)
	}
	return certs
}

// TestSecret: the test identity provider's client secret is published.
func TestSecret(t *testing.T) {
	if !published.Secret(published.TestIdPClientSecret) || published.Secret("a secret of the bank's") {
		t.Fatal("Secret")
	}
}
