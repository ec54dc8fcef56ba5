package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"time"
)

// Source is an authoritative register of TPPs.
type Source interface {
	// Lookup returns the entry for orgID, ErrNotFound if the register does
	// not know it, or another error if the register could not be asked.
	Lookup(ctx context.Context, orgID string) (*Entry, error)
}

// File is the register as a JSON document {"tpps":[Entry...]}.
type File struct {
	entries map[string]*Entry
}

// LoadFile reads the register from path.
func LoadFile(path string) (*File, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("registry: %w", err)
	}
	return ParseFile(raw)
}

// ParseFile parses a register document.
func ParseFile(raw []byte) (*File, error) {
	var doc struct {
		TPPs []*Entry `json:"tpps"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("registry: parsing register: %w", err)
	}
	f := &File{entries: make(map[string]*Entry, len(doc.TPPs))}
	for i, e := range doc.TPPs {
		if e == nil || e.OrganizationIdentifier == "" {
			return nil, fmt.Errorf("registry: entry %d has no organizationIdentifier", i)
		}
		if e.Status != StatusAuthorised && e.Status != StatusWithdrawn {
			return nil, fmt.Errorf("registry: entry %s has status %q, want %q or %q", e.OrganizationIdentifier, e.Status, StatusAuthorised, StatusWithdrawn)
		}
		if _, dup := f.entries[e.OrganizationIdentifier]; dup {
			return nil, fmt.Errorf("registry: %s listed twice", e.OrganizationIdentifier)
		}
		f.entries[e.OrganizationIdentifier] = e
	}
	return f, nil
}

// OrganizationIdentifiers returns the identifiers the register lists,
// in no set order.
func (f *File) OrganizationIdentifiers() []string {
	ids := make([]string, 0, len(f.entries))
	for id := range f.entries {
		ids = append(ids, id)
	}
	return ids
}

// Lookup implements Source.
func (f *File) Lookup(_ context.Context, orgID string) (*Entry, error) {
	if e, ok := f.entries[orgID]; ok {
		return e, nil
	}
	return nil, ErrNotFound
}

// HTTP is a register reached over HTTP: GET <BaseURL>/<orgID> answers 200
// with an Entry, or 404 for an unknown TPP.
type HTTP struct {
	// BaseURL is the register's address, e.g. https://register.example/tpps.
	BaseURL string
	// Client makes the requests; nil uses a client with a 5 s timeout.
	Client *http.Client
}

// Lookup implements Source.
func (h *HTTP) Lookup(ctx context.Context, orgID string) (*Entry, error) {
	client := h.Client
	if client == nil {
		client = &http.Client{Timeout: 5 * time.Second}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, h.BaseURL+"/"+url.PathEscape(orgID), nil)
	if err != nil {
		return nil, fmt.Errorf("registry: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("registry: %w", err)
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
	case http.StatusNotFound:
		return nil, ErrNotFound
	default:
		return nil, fmt.Errorf("registry: register answered %d", resp.StatusCode)
	}
	var e Entry
	if err := json.NewDecoder(http.MaxBytesReader(nil, resp.Body, 64<<10)).Decode(&e); err != nil {
		return nil, fmt.Errorf("registry: decoding entry: %w", err)
	}
	if e.OrganizationIdentifier != orgID {
		return nil, fmt.Errorf("registry: register answered for %q, asked for %q", e.OrganizationIdentifier, orgID)
	}
	return &e, nil
}

// Chain asks its sources in order: the first that knows the TPP answers
// (registered or withdrawn); one that cannot be asked fails the lookup
// (fail closed), rather than let a later source decide in its place.
type Chain []Source

// Lookup implements Source.
func (c Chain) Lookup(ctx context.Context, orgID string) (*Entry, error) {
	for _, s := range c {
		e, err := s.Lookup(ctx, orgID)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		return e, err
	}
	return nil, ErrNotFound
}
