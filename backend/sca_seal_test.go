package backend

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/obgw/obgw/backend/sandbox"
	"github.com/obgw/obgw/backend/sca"
	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/tppcontext"
)

// writeCount counts the calls of every store method that writes.
type writeCount struct {
	store.Store
	mu sync.Mutex
	n  map[string]int
}

func (s *writeCount) add(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.n == nil {
		s.n = map[string]int{}
	}
	s.n[name]++
}

func (s *writeCount) counts() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]int{}
	for k, v := range s.n {
		out[k] = v
	}
	return out
}

func (s *writeCount) CreateCustomer(ctx context.Context, c *store.Customer) error {
	s.add("CreateCustomer")
	return s.Store.CreateCustomer(ctx, c)
}
func (s *writeCount) DeleteCustomer(ctx context.Context, id string) error {
	s.add("DeleteCustomer")
	return s.Store.DeleteCustomer(ctx, id)
}
func (s *writeCount) CreateAccount(ctx context.Context, a *store.Account) error {
	s.add("CreateAccount")
	return s.Store.CreateAccount(ctx, a)
}
func (s *writeCount) SetBalances(ctx context.Context, id string, b []store.Balance) error {
	s.add("SetBalances")
	return s.Store.SetBalances(ctx, id, b)
}
func (s *writeCount) AddTransactions(ctx context.Context, id string, txs []store.Transaction) error {
	s.add("AddTransactions")
	return s.Store.AddTransactions(ctx, id, txs)
}
func (s *writeCount) CreateAgreement(ctx context.Context, a *store.Agreement) error {
	s.add("CreateAgreement")
	return s.Store.CreateAgreement(ctx, a)
}
func (s *writeCount) PSUID(ctx context.Context, tpp, customerID string) (string, error) {
	s.add("PSUID")
	return s.Store.PSUID(ctx, tpp, customerID)
}
func (s *writeCount) CorporateID(ctx context.Context, tpp, agreementID string) (string, error) {
	s.add("CorporateID")
	return s.Store.CorporateID(ctx, tpp, agreementID)
}
func (s *writeCount) CreateSCAFlow(ctx context.Context, f *store.SCAFlow) error {
	s.add("CreateSCAFlow")
	return s.Store.CreateSCAFlow(ctx, f)
}
func (s *writeCount) UpdateSCAFlow(ctx context.Context, f *store.SCAFlow, from string) error {
	s.add("UpdateSCAFlow")
	return s.Store.UpdateSCAFlow(ctx, f, from)
}
func (s *writeCount) CountSCAFlowAttempt(ctx context.Context, id string) (int, error) {
	s.add("CountSCAFlowAttempt")
	return s.Store.CountSCAFlowAttempt(ctx, id)
}
func (s *writeCount) TakeSCAFlowLogin(ctx context.Context, id, stateHash string) (string, error) {
	s.add("TakeSCAFlowLogin")
	return s.Store.TakeSCAFlowLogin(ctx, id, stateHash)
}
func (s *writeCount) CompleteSession(ctx context.Context, x *store.Session) error {
	s.add("CompleteSession")
	return s.Store.CompleteSession(ctx, x)
}
func (s *writeCount) CreateConsent(ctx context.Context, c *store.Consent) error {
	s.add("CreateConsent")
	return s.Store.CreateConsent(ctx, c)
}
func (s *writeCount) SetConsentStatus(ctx context.Context, id, status string) error {
	s.add("SetConsentStatus")
	return s.Store.SetConsentStatus(ctx, id, status)
}
func (s *writeCount) CreatePayment(ctx context.Context, p *store.Payment) error {
	s.add("CreatePayment")
	return s.Store.CreatePayment(ctx, p)
}
func (s *writeCount) UpdatePayment(ctx context.Context, p *store.Payment, from string) error {
	s.add("UpdatePayment")
	return s.Store.UpdatePayment(ctx, p, from)
}
func (s *writeCount) CreateBasket(ctx context.Context, b *store.Basket) error {
	s.add("CreateBasket")
	return s.Store.CreateBasket(ctx, b)
}
func (s *writeCount) UpdateBasket(ctx context.Context, b *store.Basket, from string) error {
	s.add("UpdateBasket")
	return s.Store.UpdateBasket(ctx, b, from)
}
func (s *writeCount) PutTPPContacts(ctx context.Context, c *store.TPPContacts) error {
	s.add("PutTPPContacts")
	return s.Store.PutTPPContacts(ctx, c)
}
func (s *writeCount) DeleteTPPContacts(ctx context.Context, tpp string) error {
	s.add("DeleteTPPContacts")
	return s.Store.DeleteTPPContacts(ctx, tpp)
}
func (s *writeCount) AddSealingKey(ctx context.Context, k *store.SealingKey) error {
	s.add("AddSealingKey")
	return s.Store.AddSealingKey(ctx, k)
}
func (s *writeCount) Atomically(ctx context.Context, fn func(store.Store) error) error {
	s.add("Atomically")
	return s.Store.Atomically(ctx, fn)
}

// sealHarness is a backend on h's store counting its writes, with its own
// clock (set to h's time); h's browsers use the first one made.
func sealHarness(t *testing.T, h *harness) (*httptest.Server, *writeCount, *clock) {
	counted := &writeCount{Store: h.st}
	clk := &clock{t: h.clk.now()}
	ver, _ := tppcontext.NewVerifier(bytes.Repeat([]byte{9}, 32))
	srv := newTestServer(t, New(Config{Store: counted, Tokens: ver, Sandbox: true, Now: clk.now}))
	t.Cleanup(srv.Close)
	if !h.sealed {
		h.sealed, h.srv = true, srv
	}
	return srv, counted, clk
}

// opens GETs a sealed link on srv without following redirects and
// returns where it sends the browser.
func opens(t *testing.T, srv *httptest.Server, link string) (int, *url.URL) {
	t.Helper()
	c := srv.Client()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := c.Get(srv.URL + link)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc, _ := url.Parse(resp.Header.Get("Location"))
	return resp.StatusCode, loc
}

// unconsented sends GET /v1/accounts without consent to srv and returns
// its scaRedirect link.
func unconsented(t *testing.T, h *harness, srv *httptest.Server) string {
	t.Helper()
	status, b, _ := h.call(tppCall{srv: srv, method: "GET", path: "/v1/accounts", sid: "s1", psuID: uuid.NewString(), psuPresent: true})
	link := scaLink(b)
	if status != 401 || !strings.HasPrefix(link, sca.SealedBase) {
		t.Fatalf("unconsented request: %d %v, want 401 with a sealed scaRedirect", status, b)
	}
	return link
}

// TestUnconsentedRequestWritesNothing (issue 15): requests without consent
// answer 401 with a sealed scaRedirect and write nothing but the sealing
// key the first one adds; the flow is stored once, when the PSU opens the
// link, however often it is opened; the PSU then completes it.
func TestUnconsentedRequestWritesNothing(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		srv, counted, _ := sealHarness(t, h)
		links := map[string]bool{}
		for range 200 {
			links[unconsented(t, h, srv)] = true
		}
		if len(links) != 200 {
			t.Errorf("%d distinct links for 200 requests", len(links))
		}
		if got := counted.counts(); len(got) != 1 || got["AddSealingKey"] != 1 {
			t.Fatalf("writes for 200 requests without consent: %v, want one AddSealingKey", got)
		}
		var link string
		for link = range links {
			break
		}
		p := h.browser()
		client := p.client
		open := func() string {
			resp, err := client.Get(srv.URL + link)
			if err != nil {
				t.Fatal(err)
			}
			page, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || !strings.HasPrefix(resp.Request.URL.Path, "/v1/sca/enc!!") {
				t.Fatalf("opening the sealed link: %d at %s: %s", resp.StatusCode, resp.Request.URL, page)
			}
			return resp.Request.URL.Path
		}
		first, again := open(), open()
		if first != again {
			t.Errorf("the link opened flow %s, then %s: want the same", first, again)
		}
		if n := counted.counts()["CreateSCAFlow"]; n != 1 {
			t.Errorf("%d flows stored for a link opened twice, want 1", n)
		}
		f, err := h.st.GetSCAFlow(context.Background(), strings.TrimPrefix(first, "/v1/sca/"))
		if err != nil || f.TPP != "PSDNO-FSA-987654321" || f.TPPSessionID != "s1" || f.Purpose != store.PurposeConsent ||
			f.RedirectURI != "https://tpp.example.no/cb?state=xyz" || f.CSRF == "" {
			t.Fatalf("stored flow %+v, %v", f, err)
		}
		// The flow completes like any other.
		page := p.open(first)
		page = body(p.submit(first, page, url.Values{"step": {"identify"}, "customerNumber": {sandbox.KariNumber}}))
		page = body(p.submit(first, page, url.Values{"step": {"context"}, "context": {"PRIVATE"}}))
		form := url.Values{"step": {"confirm"}}
		for _, b := range accountBox.FindAllStringSubmatch(page, -1) {
			form.Add("account", b[1])
		}
		resp := p.submit(first, page, form)
		resp.Body.Close()
		loc, _ := url.Parse(resp.Header.Get("Location"))
		if resp.StatusCode != http.StatusSeeOther || loc.Query().Get("psu-id") == "" || loc.Query().Get("state") != "xyz" {
			t.Fatalf("confirm: %d %s", resp.StatusCode, loc)
		}
	})
}

// TestSealedLinkTampered: a link that is not one of ours (altered, cut,
// another key id, over-long) gets the plain 404 page and stores nothing.
func TestSealedLinkTampered(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		srv, counted, _ := sealHarness(t, h)
		link := unconsented(t, h, srv)
		token := strings.TrimPrefix(link, sca.SealedBase)
		kid, text, _ := strings.Cut(token, ".")
		flip := []byte(text)
		flip[len(flip)/2] ^= 1
		if flip[len(flip)/2] == '.' || flip[len(flip)/2] > 'z' {
			flip[len(flip)/2] = 'A'
		}
		for name, tok := range map[string]string{
			"a flipped byte": kid + "." + string(flip),
			"cut short":      token[:len(token)-4],
			"another key":    "AAAAAAAA." + text,
			"no key":         text,
			"over-long":      token + strings.Repeat("A", sca.MaxSealedBytes),
			"not base64":     kid + ".!!!",
		} {
			resp, err := srv.Client().Get(srv.URL + sca.SealedBase + tok)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 404 || !strings.Contains(string(b), "link is unknown") {
				t.Errorf("%s: %d %s, want the 404 page", name, resp.StatusCode, b)
			}
		}
		if got := counted.counts(); got["CreateSCAFlow"] != 0 {
			t.Errorf("writes for tampered links: %v", got)
		}
	})
}

// TestSealedLinkExpired: a link opened after the flow's lifetime, never
// opened before, sends the PSU back to the TPP with the failure redirect
// and stores nothing; one opened in time and reopened late reaches its
// stored flow, which answers as an expired flow does.
func TestSealedLinkExpired(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		srv, counted, clk := sealHarness(t, h)
		late := unconsented(t, h, srv)
		early := unconsented(t, h, srv)
		if status, loc := opens(t, srv, early); status != http.StatusSeeOther || !strings.HasPrefix(loc.Path, "/v1/sca/enc!!") {
			t.Fatalf("opening in time: %d %s", status, loc)
		}
		clk.add(sca.FlowLifetime + time.Second)
		status, loc := opens(t, srv, late)
		if status != http.StatusSeeOther || loc.Host != "tpp.example.no" || loc.Query().Get("state") != "xyz" ||
			loc.Query().Get("code") != "CONSENT_INVALID" {
			t.Errorf("never opened, expired: %d %s, want the failure redirect to the TPP", status, loc)
		}
		// Opened in time: its stored flow answers, expired.
		client := h.browser().client
		resp, err := client.Get(srv.URL + early)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		loc, _ = url.Parse(resp.Header.Get("Location"))
		if resp.StatusCode != http.StatusSeeOther || loc.Host != "tpp.example.no" || loc.Query().Get("code") != "CONSENT_INVALID" {
			t.Errorf("opened in time, expired: %d %s, want the flow's failure redirect", resp.StatusCode, loc)
		}
		if n := counted.counts()["CreateSCAFlow"]; n != 1 {
			t.Errorf("%d flows stored, want only the one opened in time", n)
		}
	})
}

// TestSealingKeyRotation: the newest key seals for store.SealingKeyRotation,
// then a newer one is added; a link sealed by one instance opens on
// another sharing the store; the sweep drops keys past their retention.
func TestSealingKeyRotation(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		a, countedA, clkA := sealHarness(t, h)
		b, _, clkB := sealHarness(t, h)
		link := unconsented(t, h, a)
		if status, loc := opens(t, b, link); status != http.StatusSeeOther || !strings.HasPrefix(loc.Path, "/v1/sca/enc!!") {
			t.Fatalf("a link of instance A opened on B: %d %s", status, loc)
		}
		keys, _ := h.st.SealingKeys(context.Background())
		if len(keys) != 1 {
			t.Fatalf("%d keys after the first link, want 1", len(keys))
		}
		clkA.add(store.SealingKeyRotation + time.Minute)
		clkB.add(store.SealingKeyRotation + time.Minute)
		h.clk.add(store.SealingKeyRotation + time.Minute)
		unconsented(t, h, a)
		if n := countedA.counts()["AddSealingKey"]; n != 2 {
			t.Errorf("%d keys added by A across a rotation, want 2", n)
		}
		linkB := unconsented(t, h, b)
		if keys, _ = h.st.SealingKeys(context.Background()); len(keys) != 2 {
			t.Errorf("%d keys after the rotation, want 2 (B uses A's new key)", len(keys))
		}
		if !strings.HasPrefix(strings.TrimPrefix(linkB, sca.SealedBase), keys[0].ID+".") {
			t.Errorf("B sealed %s, want the newest key %s", linkB, keys[0].ID)
		}
		swept, err := h.st.Sweep(context.Background(), clkA.now().Add(store.DefaultRetention.SealingKeys-store.SealingKeyRotation), store.DefaultRetention)
		if err != nil || swept.SealingKeys != 1 {
			t.Errorf("sweep: %+v %v, want the old key deleted", swept, err)
		}
		if keys, _ = h.st.SealingKeys(context.Background()); len(keys) != 1 {
			t.Errorf("%d keys after the sweep, want 1", len(keys))
		}
	})
}
