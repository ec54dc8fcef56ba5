package trustlist

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// MaxList bounds one national list (the largest EU list is about 3 MB).
const MaxList = 32 << 20

// Set keeps the EU trusted lists a refresh.Keeper fetches: Accept reads
// the LOTL the Keeper fetched, verifies it with the pinned signers,
// fetches every national list it points to and verifies each with the
// certificates the LOTL names for it; the documents, as received, are
// the snapshot the instances share, and Use verifies them again before
// they become the Anchors in use.
type Set struct {
	// Signers are the LOTL's signing certificates, pinned (those the
	// Official Journal published).
	Signers []*x509.Certificate
	// Dir, when set, holds the national lists of an air-gapped copy, by
	// territory: <CC>.xml or TSL_<CC>.xml, instead of their locations.
	Dir string
	// Client fetches the national lists; nil uses one with a 2-minute
	// timeout.
	Client *http.Client
	// Grace is how long past its NextUpdate a list's CAs are still
	// trusted; after it they fail closed.
	Grace time.Duration
	// Now is the clock; nil is time.Now.
	Now func() time.Time
	// Log reports lists that could not be fetched, and a LOTL that
	// announces another Official Journal notice of its signers than
	// Notice; nil discards.
	Log *slog.Logger
	// Notice is the Official Journal notice of Signers, as the LOTL names
	// it first among its SchemeInformationURIs (PublishedNotice for the
	// built-in signers); empty: not compared.
	Notice string

	anchors atomic.Pointer[Anchors]
	mu      sync.Mutex
	current *snapshot // the documents in use, for lists a fetch misses
}

// snapshot is what the instances share: the documents as received.
type snapshot struct {
	LOTL  []byte            `json:"lotl"`
	Lists map[string][]byte `json:"lists"` // by territory
}

// Anchors are the anchors in use; nil before the first Set.
func (s *Set) Anchors() *Anchors { return s.anchors.Load() }

func (s *Set) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *Set) log() *slog.Logger {
	if s.Log != nil {
		return s.Log
	}
	return slog.New(slog.DiscardHandler)
}

// Accept reads a fetched LOTL into a snapshot: the LOTL and every
// national list it points to, each verified. A national list that cannot
// be fetched or does not verify is kept from the snapshot in use (it goes
// stale in its time); one never had is left out, and said so.
func (s *Set) Accept(body io.Reader) ([]byte, error) {
	raw, err := io.ReadAll(io.LimitReader(body, MaxList+1))
	if err != nil {
		return nil, err
	}
	if len(raw) > MaxList {
		return nil, errors.New("trustlist: the LOTL is larger than 32 MiB")
	}
	lotl, err := s.verifyLOTL(raw)
	if err != nil {
		return nil, err
	}
	if notice := officialJournalNotice(lotl); s.Notice != "" && notice != "" && notice != s.Notice {
		// The Commission announces the next signers in a new notice while
		// the LOTL is still signed by the current ones: time to pin them.
		s.log().Warn("trusted list: the LOTL names another Official Journal notice of its signers than the one pinned; "+
			"obgw verifies it with the pinned signers until the LOTL is signed otherwise: give the new notice's certificates in qtsp_trusted_list_signers",
			"notice", notice, "pinned", s.Notice, "sequence", lotl.Sequence)
	}
	s.mu.Lock()
	prev := s.current
	s.mu.Unlock()
	snap := &snapshot{LOTL: raw, Lists: map[string][]byte{}}
	for _, p := range nationalPointers(lotl) {
		doc, err := s.fetch(p)
		if err == nil {
			_, err = verifyNational(doc, p)
		}
		if err != nil {
			if prev != nil && prev.Lists[p.Territory] != nil {
				if _, perr := verifyNational(prev.Lists[p.Territory], p); perr == nil {
					s.log().Error("trusted list: a national list could not be fetched; the last good one stays", "territory", p.Territory, "location", p.Location, "error", err)
					snap.Lists[p.Territory] = prev.Lists[p.Territory]
					continue
				}
			}
			s.log().Error("trusted list: a national list could not be fetched: its CAs are not trusted until it is", "territory", p.Territory, "location", p.Location, "error", err)
			continue
		}
		snap.Lists[p.Territory] = doc
	}
	if len(snap.Lists) == 0 {
		return nil, errors.New("trustlist: no national list of the LOTL could be fetched and verified")
	}
	return json.Marshal(snap)
}

// Use installs a snapshot (made here or by another instance): each
// document is verified again.
func (s *Set) Use(raw []byte, _ time.Time) error {
	var snap snapshot
	if err := json.Unmarshal(raw, &snap); err != nil {
		return fmt.Errorf("trustlist: stored lists: %w", err)
	}
	lotl, err := s.verifyLOTL(snap.LOTL)
	if err != nil {
		return err
	}
	var lists []*List
	for _, p := range nationalPointers(lotl) {
		doc := snap.Lists[p.Territory]
		if doc == nil {
			continue
		}
		l, err := verifyNational(doc, p)
		if err != nil {
			return fmt.Errorf("trustlist: stored list of %s: %w", p.Territory, err)
		}
		lists = append(lists, l)
	}
	s.anchors.Store(NewAnchors(lists, s.Grace, s.now))
	s.mu.Lock()
	s.current = &snap
	s.mu.Unlock()
	return nil
}

// Renewed is the earliest NextUpdate of the lists in use that is still
// ahead (zero when none is): when the next list is due, for a refresh
// before it (refresh.Keeper.Renewed).
func (s *Set) Renewed() time.Time {
	a := s.anchors.Load()
	if a == nil {
		return time.Time{}
	}
	var next time.Time
	now := s.now()
	for _, l := range a.summaries {
		if l.NextUpdate.After(now) && (next.IsZero() || l.NextUpdate.Before(next)) {
			next = l.NextUpdate
		}
	}
	return next
}

// Lists says which lists are in use: the LOTL's sequence and each
// national list's territory, sequence and NextUpdate (for the log and
// metrics).
func (s *Set) Lists() []Summary {
	a := s.anchors.Load()
	if a == nil {
		return nil
	}
	return a.summaries
}

func (s *Set) verifyLOTL(raw []byte) (*List, error) {
	signed, _, err := Verify(raw, s.Signers)
	if err != nil {
		return nil, fmt.Errorf("the LOTL: %w", err)
	}
	l, err := Parse(signed)
	if err != nil {
		return nil, fmt.Errorf("the LOTL: %w", err)
	}
	if l.Territory != "EU" {
		return nil, fmt.Errorf("trustlist: the LOTL's territory is %q, not EU", l.Territory)
	}
	return l, nil
}

// officialJournalNotice is the LOTL's first SchemeInformationURI on
// eur-lex.europa.eu, or "".
func officialJournalNotice(lotl *List) string {
	for _, u := range lotl.SchemeURIs {
		if strings.HasPrefix(u, "https://eur-lex.europa.eu/") {
			return u
		}
	}
	return ""
}

// nationalPointers are the LOTL's pointers to machine-readable national
// lists, one per territory (the first), in territory order.
func nationalPointers(lotl *List) []Pointer {
	seen := map[string]bool{}
	var out []Pointer
	for _, p := range lotl.Pointers {
		if p.Territory == "" || p.Territory == "EU" || p.MimeType != MimeTypeTSL || seen[p.Territory] {
			continue
		}
		seen[p.Territory] = true
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Territory < out[j].Territory })
	return out
}

func verifyNational(doc []byte, p Pointer) (*List, error) {
	signed, _, err := Verify(doc, p.Signers)
	if err != nil {
		return nil, err
	}
	l, err := Parse(signed)
	if err != nil {
		return nil, err
	}
	if l.Territory != p.Territory {
		return nil, fmt.Errorf("trustlist: the list at %s is %s's, the LOTL points at it for %s", p.Location, l.Territory, p.Territory)
	}
	return l, nil
}

// fetch gets a national list: from Dir by territory, or its location.
func (s *Set) fetch(p Pointer) ([]byte, error) {
	if s.Dir != "" {
		for _, name := range []string{p.Territory + ".xml", "TSL_" + p.Territory + ".xml"} {
			b, err := os.ReadFile(filepath.Join(s.Dir, name))
			if err == nil {
				return b, nil
			}
		}
		return nil, fmt.Errorf("no %s.xml or TSL_%s.xml in %s", p.Territory, p.Territory, s.Dir)
	}
	if !strings.HasPrefix(p.Location, "https://") {
		return nil, fmt.Errorf("the location %q is not https", p.Location)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.Location, nil)
	if err != nil {
		return nil, err
	}
	client := s.Client
	if client == nil {
		client = &http.Client{Timeout: 2 * time.Minute}
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s answered %d", p.Location, resp.StatusCode)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, MaxList+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxList {
		return nil, errors.New("larger than 32 MiB")
	}
	return b, nil
}
