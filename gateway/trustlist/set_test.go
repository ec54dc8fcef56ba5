package trustlist

import (
	"bytes"
	"crypto/x509"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/obgw/obgw/gateway/trustlist/tltest"
)

// listServer serves national lists over https by path, and can fail.
type listServer struct {
	srv  *httptest.Server
	mu   sync.Mutex
	docs map[string][]byte
	down bool
}

func newListServer(t *testing.T) *listServer {
	s := &listServer{docs: map[string][]byte{}}
	s.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		if d, ok := s.docs[r.URL.Path]; ok && !s.down {
			w.Write(d)
			return
		}
		http.Error(w, "down", http.StatusServiceUnavailable)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

// TestSet: the LOTL is verified with the pinned signers and every
// national list it points to is fetched and verified with the signers it
// names; the snapshot, used on another instance, gives the same anchors.
// A national list that cannot be fetched later keeps its last good copy;
// one signed by a key the LOTL does not name is left out; a LOTL by an
// unknown signer is refused; an air-gapped directory serves as the
// locations do.
func TestSet(t *testing.T) {
	ls := newListServer(t)
	lotlSigner, noSigner, seSigner, rogue := newCA(t, "LOTL signer", false), newCA(t, "NO signer", true), newCA(t, "SE signer", false), newCA(t, "Rogue", false)
	seal, web := newCA(t, "Seal CA", false), newCA(t, "Web CA", false)
	issued := day("2026-11-01")
	lotl, err := tltest.Sign(tltest.List{Territory: "EU", Sequence: 400, Issued: issued, NextUpdate: issued.AddDate(0, 6, 0), Pointers: []tltest.Pointer{
		{Territory: "EU", Location: ls.srv.URL + "/eu-lotl.xml", Signers: []*x509.Certificate{lotlSigner.cert}},
		{Territory: "NO", Location: ls.srv.URL + "/NO_TL.xml", Signers: []*x509.Certificate{noSigner.cert}},
		{Territory: "SE", Location: ls.srv.URL + "/SE_TL.xml", Signers: []*x509.Certificate{seSigner.cert}},
		{Territory: "DK", Location: ls.srv.URL + "/DK_TL.xml", Signers: []*x509.Certificate{seSigner.cert}},
	}}, lotlSigner.key, lotlSigner.cert)
	if err != nil {
		t.Fatal(err)
	}
	national := func(territory string, signer *testCA, ca *testCA, use string) []byte {
		b, err := tltest.Sign(tltest.List{Territory: territory, Sequence: 1, Issued: issued, NextUpdate: issued.AddDate(0, 6, 0), Services: []tltest.Service{
			{Name: territory + " CA", CA: ca.cert, History: []tltest.Status{{Status: tltest.Granted, Since: day("2019-01-01"), Uses: []string{use}}}},
		}}, signer.key, signer.cert)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	ls.docs["/NO_TL.xml"] = national("NO", noSigner, seal, tltest.Seals)
	ls.docs["/SE_TL.xml"] = national("SE", seSigner, web, tltest.Web)
	ls.docs["/DK_TL.xml"] = national("DK", rogue, seal, tltest.Seals) // not signed by the key the LOTL names

	client := &http.Client{Transport: &http.Transport{TLSClientConfig: ls.srv.Client().Transport.(*http.Transport).TLSClientConfig}}
	now := func() time.Time { return day("2026-11-28") }
	set := &Set{Signers: []*x509.Certificate{lotlSigner.cert}, Client: client, Grace: 7 * 24 * time.Hour, Now: now}
	snap, err := set.Accept(bytes.NewReader(lotl))
	if err != nil {
		t.Fatal(err)
	}
	if err := set.Use(snap, now()); err != nil {
		t.Fatal(err)
	}
	a := set.Anchors()
	if a == nil || a.Len() != 2 {
		t.Fatalf("anchors %+v, want the NO and SE CAs (DK's list is signed by another key)", set.Lists())
	}
	if got := set.Renewed(); !got.Equal(issued.AddDate(0, 6, 0)) {
		t.Fatalf("Renewed %v, want the lists' next update %v", got, issued.AddDate(0, 6, 0))
	}
	sealChain := []*x509.Certificate{seal.issue(t, day("2024-01-01")), seal.cert}
	if err := a.Qualified(sealChain, UseSeal); err != nil {
		t.Fatal(err)
	}
	// Another instance uses the snapshot: the same anchors.
	other := &Set{Signers: []*x509.Certificate{lotlSigner.cert}, Grace: 7 * 24 * time.Hour, Now: now}
	if err := other.Use(snap, now()); err != nil || other.Anchors().Len() != 2 {
		t.Fatalf("another instance: %v", err)
	}
	// Norway's server down: the last good list stays.
	ls.mu.Lock()
	ls.down = true
	ls.mu.Unlock()
	snap2, err := set.Accept(bytes.NewReader(lotl))
	if err != nil {
		t.Fatal(err)
	}
	if err := set.Use(snap2, now()); err != nil || set.Anchors().Qualified(sealChain, UseSeal) != nil {
		t.Fatalf("with the lists' servers down: %v", err)
	}
	// An unknown LOTL signer.
	if _, err := (&Set{Signers: []*x509.Certificate{rogue.cert}, Client: client}).Accept(bytes.NewReader(lotl)); err == nil {
		t.Fatal("a LOTL by an unknown signer was accepted")
	}
	// An air-gapped directory.
	dir := t.TempDir()
	ls.mu.Lock()
	os.WriteFile(filepath.Join(dir, "NO.xml"), ls.docs["/NO_TL.xml"], 0o600)
	os.WriteFile(filepath.Join(dir, "TSL_SE.xml"), ls.docs["/SE_TL.xml"], 0o600)
	ls.mu.Unlock()
	gapped := &Set{Signers: []*x509.Certificate{lotlSigner.cert}, Dir: dir, Grace: 7 * 24 * time.Hour, Now: now}
	snap3, err := gapped.Accept(bytes.NewReader(lotl))
	if err != nil {
		t.Fatal(err)
	}
	if err := gapped.Use(snap3, now()); err != nil || gapped.Anchors().Len() != 2 {
		t.Fatalf("an air-gapped directory: %v", err)
	}
}

// TestSetNewNotice: a LOTL that names another Official Journal notice of
// its signers than the pinned one is still verified with the pinned
// signers, and obgw warns to pin the new notice's certificates; one that
// names the pinned notice says nothing.
func TestSetNewNotice(t *testing.T) {
	signer, no := newCA(t, "LOTL signer", true), newCA(t, "NO signer", true)
	dir := t.TempDir()
	issued := day("2026-11-01")
	nat, err := tltest.Sign(tltest.List{Territory: "NO", Sequence: 1, Issued: issued, NextUpdate: issued.AddDate(0, 6, 0)}, no.key, no.cert)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "NO.xml"), nat, 0o600)
	for _, tc := range []struct {
		notice string
		warn   bool
	}{{PublishedNotice, false}, {"https://eur-lex.europa.eu/eli/C/2027/99/oj", true}} {
		lotl, err := tltest.Sign(tltest.List{Territory: "EU", Sequence: 400, Issued: issued, NextUpdate: issued.AddDate(0, 6, 0),
			SchemeURIs: []string{tc.notice, "https://ec.europa.eu/tools/lotl/eu-lotl-pivot-400.xml"},
			Pointers:   []tltest.Pointer{{Territory: "NO", Location: "https://no.test/NO_TL.xml", Signers: []*x509.Certificate{no.cert}}}}, signer.key, signer.cert)
		if err != nil {
			t.Fatal(err)
		}
		var logs bytes.Buffer
		set := &Set{Signers: []*x509.Certificate{signer.cert}, Notice: PublishedNotice, Dir: dir, Log: slog.New(slog.NewJSONHandler(&logs, nil))}
		if _, err := set.Accept(bytes.NewReader(lotl)); err != nil {
			t.Fatal(err)
		}
		if warned := strings.Contains(logs.String(), "another Official Journal notice"); warned != tc.warn || tc.warn && !strings.Contains(logs.String(), tc.notice) {
			t.Fatalf("notice %s: warned %v, want %v:\n%s", tc.notice, warned, tc.warn, logs.String())
		}
	}
}
