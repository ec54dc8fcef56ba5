package registry

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/obgw/obgw/gateway/refresh"
)

// EBASource is the EBA register as a Source, kept current by a
// refresh.Keeper whose Accept and Use it provides: Accept reads what the
// register's address serves (the JSON export, a ZIP holding it, or the
// EBA's file metadata pointing at the latest ZIP) into the institutions'
// snapshot the instances share; Use installs a snapshot.
type EBASource struct {
	// Country is the bank's country, whose roles count (default NO).
	Country string
	// MaxAge is how old the register in use may be before lookups fail
	// closed (ErrUnavailable, 503 past the cache's stale bound).
	MaxAge time.Duration
	// Fetched is when the register in use was last fetched (the Keeper's
	// Fetched: a 304 counts).
	Fetched func() time.Time
	// Now is the clock; nil is time.Now.
	Now func() time.Time

	reg atomic.Pointer[EBA]
}

// ErrStale is a lookup's error when the register in use is older than
// MaxAge, or none was ever loaded.
var ErrStale = errors.New("registry: the EBA register is too old or not loaded: lookups fail closed until it is fetched")

func (s *EBASource) country() string {
	if s.Country == "" {
		return "NO"
	}
	return s.Country
}

// Register is the register in use, nil before the first.
func (s *EBASource) Register() *EBA { return s.reg.Load() }

// Lookup implements Source.
func (s *EBASource) Lookup(ctx context.Context, orgID string) (*Entry, error) {
	reg := s.reg.Load()
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	if reg == nil || (s.MaxAge > 0 && now().Sub(s.Fetched()) > s.MaxAge) {
		return nil, ErrStale
	}
	return reg.Lookup(ctx, orgID)
}

// Use installs a snapshot Accept made (here or on another instance).
func (s *EBASource) Use(snapshot []byte, _ time.Time) error {
	reg, err := UnmarshalEBA(snapshot)
	if err != nil {
		return err
	}
	if reg.Country() != s.country() {
		return fmt.Errorf("registry: the stored EBA register holds the roles in %s, this configuration's country is %s: it is fetched again", reg.Country(), s.country())
	}
	s.reg.Store(reg)
	return nil
}

// ebaFileMetadata is the EBA's pointer at the register's latest export.
type ebaFileMetadata struct {
	Context string `json:"golden_copy_path_context"`
	Path    string `json:"latest_version_relative_zip_path"`
}

// Accept reads a fetched body into a snapshot.
func (s *EBASource) Accept(body io.Reader) ([]byte, error) {
	br := bufio.NewReaderSize(body, 1<<16)
	head, _ := br.Peek(4)
	var reg *EBA
	var err error
	switch {
	case bytes.Equal(head, []byte("PK\x03\x04")):
		reg, err = s.fromZip(br)
	case len(bytes.TrimSpace(head)) > 0 && bytes.TrimSpace(head)[0] == '{':
		var meta ebaFileMetadata
		if err := json.NewDecoder(io.LimitReader(br, 1<<20)).Decode(&meta); err != nil || meta.Context == "" || meta.Path == "" {
			return nil, errors.New("registry: EBA register: an object that is not the EBA's file metadata (golden_copy_path_context, latest_version_relative_zip_path)")
		}
		return nil, &refresh.Follow{URL: strings.TrimSuffix(meta.Context, "/") + "/" + strings.TrimPrefix(meta.Path, "/")}
	default:
		reg, err = ParseEBA(br, s.country())
	}
	if err != nil {
		return nil, err
	}
	return reg.MarshalJSON()
}

// fromZip reads the export out of a ZIP (its one .json file), through a
// temporary file: a ZIP is read from its end.
func (s *EBASource) fromZip(r io.Reader) (*EBA, error) {
	f, err := os.CreateTemp("", "obgw-eba-*.zip")
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	n, err := io.Copy(f, r)
	if err != nil {
		return nil, err
	}
	z, err := zip.NewReader(f, n)
	if err != nil {
		return nil, fmt.Errorf("registry: EBA register: %w", err)
	}
	var found *zip.File
	for _, e := range z.File {
		if strings.HasSuffix(strings.ToLower(e.Name), ".json") {
			if found != nil {
				return nil, errors.New("registry: EBA register: the ZIP holds more than one JSON file")
			}
			found = e
		}
	}
	if found == nil {
		return nil, errors.New("registry: EBA register: the ZIP holds no JSON file")
	}
	rc, err := found.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return ParseEBA(io.LimitReader(rc, maxEBAExport), s.country())
}

// maxEBAExport bounds the export a ZIP unpacks to (the real one is
// about 220 MB): a larger one is cut off, and refused as cut short.
const maxEBAExport = 4 << 30
