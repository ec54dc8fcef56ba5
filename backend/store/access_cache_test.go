package store

import (
	"io"
	"net"
	"reflect"
	"sync"
	"testing"
	"time"
)

// accessFixture is a customer with a PSU-ID towards tpp, an account, a
// session and a valid consent on the account.
type accessFixture struct {
	tpp, psu, sid string
	customer      *Customer
	account       *Account
	consent       *Consent
}

func newAccessFixture(t *testing.T, s Store) accessFixture {
	t.Helper()
	f := accessFixture{tpp: "PSDNO-FSA-111111111", sid: "sid-1"}
	f.customer = mustCustomer(t, s, "01017012345", CustomerPrivate)
	f.account = mustAccount(t, s, f.customer.ID, "NO9312345678903")
	var err error
	f.psu, err = s.PSUID(ctx, f.tpp, f.customer.ID)
	wantErr(t, "PSUID", err, nil)
	wantErr(t, "CompleteSession", s.CompleteSession(ctx, &Session{TPP: f.tpp, TPPSessionID: f.sid, CustomerID: f.customer.ID,
		Context: string(CustomerPrivate), ValidUntil: time.Now().Add(time.Hour)}), nil)
	f.consent = &Consent{TPP: f.tpp, CustomerID: f.customer.ID, Context: string(CustomerPrivate), AccountIDs: []string{f.account.ID},
		Status: ConsentValid, ValidUntil: time.Now().AddDate(0, 0, 90), LastSCA: time.Now()}
	wantErr(t, "CreateConsent", s.CreateConsent(ctx, f.consent), nil)
	return f
}

// cachedAccess resolves f's access until an answer comes from the cache
// (no statement run), and fails t if none does within 5 s (PostgreSQL's
// listener connects in the background).
func cachedAccess(t *testing.T, s Store, f accessFixture) *Access {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := s.ResolveAccess(ctx, f.tpp, f.psu, f.sid, f.account.ID); err != nil {
			t.Fatal(err)
		}
		before := Statements(s).Run
		a, err := s.ResolveAccess(ctx, f.tpp, f.psu, f.sid, f.account.ID)
		if err != nil {
			t.Fatal(err)
		}
		if Statements(s).Run == before {
			return a
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("ResolveAccess ran a statement on every call: the access cache never served")
	return nil
}

// sameAsDatabase fails t unless s's ResolveAccess answers what the
// database holds now.
func sameAsDatabase(t *testing.T, what string, s Store, f accessFixture) {
	t.Helper()
	got, gerr := s.ResolveAccess(ctx, f.tpp, f.psu, f.sid, f.account.ID)
	want, werr := s.(*sqlStore).readAccess(ctx, f.tpp, f.psu, f.sid, f.account.ID)
	if (gerr == nil) != (werr == nil) || !reflect.DeepEqual(got, want) {
		t.Fatalf("after %s, ResolveAccess answered\n%+v (%v)\nthe database holds\n%+v (%v)", what, got, gerr, want, werr)
	}
}

// TestAccessCacheSeesEveryChange: a consented read's access is served
// from memory without a statement, and every change to what it is
// resolved from shows in the next answer: a revocation, a new consent,
// consents changed in one transaction, a new session and its replacement,
// a changed account and customer, the retention sweep, the customer's
// deletion; and a caller's change to an answer does not reach the next.
func TestAccessCacheSeesEveryChange(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db testDB) {
		s := db.open(t)
		f := newAccessFixture(t, s)
		changes := []struct {
			name   string
			change func()
		}{
			{"a caller's change to its answer", func() {
				a, _ := s.ResolveAccess(ctx, f.tpp, f.psu, f.sid, f.account.ID)
				a.Consents[0].Status = ConsentExpired
				a.Customer.Name = "changed by a caller"
			}},
			{"a revocation", func() {
				wantErr(t, "SetConsentStatus", s.SetConsentStatus(ctx, f.consent.ID, ConsentRevokedByPSU), nil)
			}},
			{"a new consent", func() {
				wantErr(t, "CreateConsent", s.CreateConsent(ctx, &Consent{TPP: f.tpp, CustomerID: f.customer.ID, Context: string(CustomerPrivate),
					AccountIDs: []string{f.account.ID}, Status: ConsentValid, ValidUntil: time.Now().AddDate(0, 0, 1), LastSCA: time.Now()}), nil)
			}},
			{"consents changed in one transaction", func() {
				wantErr(t, "Atomically", s.Atomically(ctx, func(tx Store) error {
					cs, err := tx.ListConsents(ctx, f.tpp, f.customer.ID)
					if err != nil {
						return err
					}
					for _, c := range cs {
						if err := tx.SetConsentStatus(ctx, c.ID, ConsentTerminatedByTPP); err != nil {
							return err
						}
					}
					return nil
				}), nil)
			}},
			{"a consent made in a transaction", func() {
				wantErr(t, "Atomically", s.Atomically(ctx, func(tx Store) error {
					return tx.CreateConsent(ctx, &Consent{TPP: f.tpp, CustomerID: f.customer.ID, Context: string(CustomerPrivate),
						Status: ConsentValid, ValidUntil: time.Now().AddDate(0, 0, 2), LastSCA: time.Now()})
				}), nil)
			}},
			{"a replaced session", func() {
				wantErr(t, "CompleteSession", s.CompleteSession(ctx, &Session{TPP: f.tpp, TPPSessionID: f.sid, CustomerID: f.customer.ID,
					Context: string(CustomerPrivate), ValidUntil: time.Now().Add(2 * time.Hour)}), nil)
			}},
			{"a changed account", func() {
				a := *f.account
				a.Status = "blocked"
				wantErr(t, "UpdateAccount", s.UpdateAccount(ctx, &a), nil)
			}},
			{"a changed customer", func() {
				c := *f.customer
				c.Name = "Renamed"
				wantErr(t, "UpdateCustomer", s.UpdateCustomer(ctx, &c), nil)
			}},
			{"the retention sweep", func() {
				_, err := s.Sweep(ctx, time.Now().AddDate(1, 0, 0), Retention{Flows: time.Hour, Sessions: time.Hour, Consents: time.Hour})
				wantErr(t, "Sweep", err, nil)
			}},
			{"the customer's deletion", func() {
				wantErr(t, "DeleteCustomer", s.DeleteCustomer(ctx, f.customer.ID), nil)
			}},
		}
		for _, c := range changes {
			if _, err := s.ResolveAccess(ctx, f.tpp, f.psu, f.sid, f.account.ID); err == nil {
				cachedAccess(t, s, f)
			}
			c.change()
			sameAsDatabase(t, c.name, s, f)
		}
		if _, err := s.ResolveAccess(ctx, f.tpp, f.psu, f.sid, f.account.ID); err == nil {
			t.Fatal("the deleted customer's PSU-ID still resolves")
		}
	})
}

// TestAccessCacheKeepsUnknownPSUIDs: an unknown PSU-ID is answered
// ErrNotFound from memory too (a request without consent runs no
// statement for it), until a PSU-ID is created.
func TestAccessCacheKeepsUnknownPSUIDs(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db testDB) {
		s := db.open(t)
		f := newAccessFixture(t, s)
		unknown := "3f2504e0-4f89-41d3-9a0c-0305e82c3301"
		deadline := time.Now().Add(5 * time.Second)
		for {
			_, err := s.ResolveAccess(ctx, f.tpp, unknown, "", "")
			wantErr(t, "ResolveAccess of an unknown PSU-ID", err, ErrNotFound)
			before := Statements(s).Run
			_, err = s.ResolveAccess(ctx, f.tpp, unknown, "", "")
			wantErr(t, "ResolveAccess of an unknown PSU-ID again", err, ErrNotFound)
			if Statements(s).Run == before {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("an unknown PSU-ID ran a statement on every call")
			}
			time.Sleep(20 * time.Millisecond)
		}
		other := mustCustomer(t, s, "02027012345", CustomerPrivate)
		before := Statements(s).Run
		_, err := s.PSUID(ctx, f.tpp, other.ID)
		wantErr(t, "PSUID", err, nil)
		if Statements(s).Run == before {
			t.Fatal("PSUID ran no statement")
		}
		before = Statements(s).Run
		_, err = s.ResolveAccess(ctx, f.tpp, unknown, "", "")
		wantErr(t, "ResolveAccess after a PSU-ID was made", err, ErrNotFound)
		if Statements(s).Run == before {
			t.Fatal("after a PSU-ID was made, the unknown one was still answered from memory")
		}
	})
}

// TestAccessCacheAcrossInstances: on PostgreSQL, a change committed by
// one instance reaches another that had the access in memory by the time
// the writer has answered plus the notice's way to the other instance's
// listener (measured here; integration's TestRevocationStopsAccessOnTheOther
// sends the request that follows through two real gateways), in both
// directions, again and again.
func TestAccessCacheAcrossInstances(t *testing.T) {
	db := postgresTestDB(t, nil)
	a, b := db.open(t), db.open(t)
	f := newAccessFixture(t, a)
	statuses := []string{ConsentRevokedByPSU, ConsentValid, ConsentTerminatedByTPP, ConsentValid}
	var lags []time.Duration
	for i := range 20 {
		writer, reader := a, b
		if i%2 == 1 {
			writer, reader = b, a
		}
		cachedAccess(t, reader, f)
		status := statuses[i%len(statuses)]
		wantErr(t, "SetConsentStatus", writer.SetConsentStatus(ctx, f.consent.ID, status), nil)
		answered := time.Now()
		for {
			got, err := reader.ResolveAccess(ctx, f.tpp, f.psu, f.sid, f.account.ID)
			wantErr(t, "ResolveAccess", err, nil)
			if got.Consents[0].Status == status {
				break
			}
			if time.Since(answered) > echoWait {
				t.Fatalf("round %d: the other instance still answers %s %v after %s was committed", i, got.Consents[0].Status, echoWait, status)
			}
			time.Sleep(100 * time.Microsecond)
		}
		lags = append(lags, time.Since(answered))
	}
	t.Logf("after the writer answered, the other instance answered the change within %v", lags)
}

// TestAccessCacheSeesAnotherProcessOnTheFile: two stores on one SQLite
// file (two gateways, or obgw import beside a running one) each keep
// access in memory; what one commits shows in the other's very next
// answer (the file's data version), every time.
func TestAccessCacheSeesAnotherProcessOnTheFile(t *testing.T) {
	db := sqliteTestDB(t, nil)
	a, b := db.open(t), db.open(t)
	f := newAccessFixture(t, a)
	statuses := []string{ConsentRevokedByPSU, ConsentValid}
	for i := range 10 {
		writer, reader := a, b
		if i%2 == 1 {
			writer, reader = b, a
		}
		cachedAccess(t, reader, f)
		status := statuses[i%len(statuses)]
		wantErr(t, "SetConsentStatus", writer.SetConsentStatus(ctx, f.consent.ID, status), nil)
		got, err := reader.ResolveAccess(ctx, f.tpp, f.psu, f.sid, f.account.ID)
		wantErr(t, "ResolveAccess", err, nil)
		if got.Consents[0].Status != status {
			t.Fatalf("round %d: the other store still answers %s after %s was committed", i, got.Consents[0].Status, status)
		}
	}
}

// TestAccessCacheFailsSafeWhenCut: on PostgreSQL, when the channel that
// tells an instance of other instances' changes is cut, the instance stops
// answering from memory: at once when the connection breaks, and within
// listenLease when it goes silent; what another instance changes
// meanwhile shows in its next answer. Once the channel is back, it serves
// from memory again.
func TestAccessCacheFailsSafeWhenCut(t *testing.T) {
	for _, silent := range []bool{false, true} {
		name := "broken"
		if silent {
			name = "silent"
		}
		t.Run(name, func(t *testing.T) {
			db := postgresTestDB(t, nil)
			p := startCutProxy(t, "127.0.0.1:5432")
			a := db.open(t)
			viaProxy := db
			viaProxy.opt.listenVia = "postgres://postgres@" + p.addr() + "/test?sslmode=disable"
			b := viaProxy.open(t)
			f := newAccessFixture(t, a)
			cachedAccess(t, b, f)

			p.cut(silent)
			if silent {
				time.Sleep(listenLease + listenBeat)
			} else {
				time.Sleep(50 * time.Millisecond) // the break reaching the listener
			}
			wantErr(t, "SetConsentStatus", a.SetConsentStatus(ctx, f.consent.ID, ConsentRevokedByPSU), nil)
			before := Statements(b).Run
			got, err := b.ResolveAccess(ctx, f.tpp, f.psu, f.sid, f.account.ID)
			wantErr(t, "ResolveAccess", err, nil)
			if got.Consents[0].Status != ConsentRevokedByPSU {
				t.Fatalf("with the channel cut, the instance still answers %s from memory", got.Consents[0].Status)
			}
			if Statements(b).Run == before {
				t.Fatal("with the channel cut, the answer came from memory")
			}

			p.restore()
			cachedAccess(t, b, f)
		})
	}
}

// cutProxy forwards TCP connections to a target until cut: broken (every
// connection closed, new ones refused) or silent (connections kept open,
// nothing forwarded either way).
type cutProxy struct {
	target string
	ln     net.Listener
	mu     sync.Mutex
	conns  []net.Conn
	paused bool
	closed bool
}

func startCutProxy(t *testing.T, target string) *cutProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cutProxy{target: target, ln: ln}
	t.Cleanup(func() {
		ln.Close()
		p.closeAll()
	})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			p.mu.Lock()
			if p.closed || p.paused {
				p.mu.Unlock()
				c.Close()
				continue
			}
			up, err := net.Dial("tcp", target)
			if err != nil {
				p.mu.Unlock()
				c.Close()
				continue
			}
			p.conns = append(p.conns, c, up)
			p.mu.Unlock()
			go p.pipe(c, up)
			go p.pipe(up, c)
		}
	}()
	return p
}

func (p *cutProxy) addr() string { return p.ln.Addr().String() }

// pipe copies src to dst, holding what it reads while the proxy is
// paused.
func (p *cutProxy) pipe(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		for {
			p.mu.Lock()
			paused := p.paused
			p.mu.Unlock()
			if !paused {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			if err != io.EOF {
				dst.Close()
			}
			dst.Close()
			return
		}
	}
}

func (p *cutProxy) cut(silent bool) {
	if silent {
		p.mu.Lock()
		p.paused = true
		p.mu.Unlock()
		return
	}
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	p.closeAll()
}

// restore forwards again; a silently cut connection stays unusable to
// whoever gave up on it.
func (p *cutProxy) restore() {
	p.mu.Lock()
	p.paused, p.closed = false, false
	p.mu.Unlock()
}

func (p *cutProxy) closeAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// TestChangesAccess: the statements that move the cache's generation.
func TestChangesAccess(t *testing.T) {
	for q, want := range map[string]bool{
		`SELECT * FROM consents`:                                false,
		"\n\t\tselect 1 FROM accounts WHERE id = $1":            false,
		`UPDATE consents SET status = $1 WHERE id = $2`:         true,
		`INSERT INTO consent_accounts (consent_id) VALUES ($1)`: true,
		`DELETE FROM sessions WHERE tpp = $1`:                   true,
		`INSERT INTO psu_ids (tpp) VALUES ($1)`:                 true,
		`UPDATE customers SET name = $1`:                        true,
		`DELETE FROM accounts WHERE id = $1`:                    true,
		`INSERT INTO payments (id) VALUES ($1)`:                 false,
		`UPDATE sca_flows SET state = $1`:                       false,
	} {
		if got := changesAccess(q); got != want {
			t.Errorf("changesAccess(%q) = %v, want %v", q, got, want)
		}
	}
}
