// Package refresh keeps a downloaded trust source current on every
// instance: one instance at a time (under a lease in the shared store)
// fetches it with a conditional GET, checks it and stores the result;
// every instance loads the stored result, at start (so a restart without
// network serves the last good copy) and whenever another instance stored
// a newer one. The EBA register and the trusted lists use it.
package refresh

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"
)

// Document is a source's stored result.
type Document struct {
	// Body is what Accept returned: the source's derived form.
	Body []byte
	// ETag and LastModified are the source's validators, for the next
	// conditional GET (a file's modification time).
	ETag, LastModified string
	// Fetched is when the source last answered with it.
	Fetched time.Time
}

// Store is where instances share a source's result, and take turns
// fetching it.
type Store interface {
	// Document returns the stored result called name; nil when none.
	Document(ctx context.Context, name string) (*Document, error)
	// PutDocument stores d as name's result, unless a later one is.
	PutDocument(ctx context.Context, name string, d *Document) error
	// Lease makes holder the one instance fetching name until ttl has
	// passed, or reports that another is.
	Lease(ctx context.Context, name, holder string, now time.Time, ttl time.Duration) (bool, error)
}

// Follow is an error Accept returns when the body only points at the
// source (as the EBA's file metadata points at its latest export): the
// Keeper fetches URL instead, once.
type Follow struct{ URL string }

func (f *Follow) Error() string { return "refresh: the source is at " + f.URL }

// MaxBody bounds what one fetch reads.
const MaxBody = 1 << 30

// Keeper keeps one source current. Start it with Run.
type Keeper struct {
	// Name names the source in the store, logs and metrics.
	Name string
	// URL is the source: an http(s) URL, or a file path (an air-gapped
	// copy, read again when its modification time changes).
	URL string
	// Every is how often the source is fetched (a conditional GET).
	Every time.Duration
	// Unconditional fetches the whole source every time, for a source
	// whose address is only its entry (the LOTL: the lists it points to
	// change without it).
	Unconditional bool
	// Accept reads a fetched body and returns what to store and use, or
	// why the body is refused (the last good result stays).
	Accept func(body io.Reader) ([]byte, error)
	// Use installs a result (fetched here, or stored by another
	// instance); an error leaves the previous one in use. A source not
	// modified is not installed again.
	Use func(body []byte, fetched time.Time) error
	// Store shares results; nil keeps them in this process.
	Store Store
	// Holder names this instance for the lease.
	Holder string
	// Client fetches; nil uses one with a 5-minute timeout.
	Client *http.Client
	// Now is the clock; nil is time.Now.
	Now func() time.Time
	// Log reports fetches and failures; nil discards.
	Log *slog.Logger
	// Failed counts failed fetches (a metric); nil counts nothing.
	Failed func()
	// Renewed, when set, says when the source in use is next renewed at
	// its publisher (the trusted lists' earliest NextUpdate still ahead);
	// a fetch is then due a minute after it, when that comes before
	// Every. Zero: nothing is announced.
	Renewed func() time.Time

	mu        sync.Mutex
	current   *Document // in use
	notBefore time.Time // no fetch before, after a failed one
}

// Poll is how often an instance looks for a result another stored.
const Poll = time.Minute

// Retry is how long after a failed fetch the next one is tried.
const Retry = 5 * time.Minute

// leaseTTL bounds one fetch: the lease is given up when it passes.
const leaseTTL = 15 * time.Minute

func (k *Keeper) now() time.Time {
	if k.Now != nil {
		return k.Now()
	}
	return time.Now()
}

func (k *Keeper) log() *slog.Logger {
	if k.Log != nil {
		return k.Log
	}
	return slog.New(slog.DiscardHandler)
}

// Fetched is when the result in use was fetched; zero before the first.
func (k *Keeper) Fetched() time.Time {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.current == nil {
		return time.Time{}
	}
	return k.current.Fetched
}

// Run loads the stored result, then keeps the source current until ctx
// ends.
func (k *Keeper) Run(ctx context.Context) {
	for {
		k.Step(ctx)
		select {
		case <-ctx.Done():
			return
		case <-time.After(k.wait()):
		}
	}
}

// due is when the next fetch is: Every after the last, and not before
// Retry after a failed one.
func (k *Keeper) due() time.Time {
	k.mu.Lock()
	defer k.mu.Unlock()
	var at time.Time
	if k.current != nil {
		at = k.current.Fetched.Add(k.Every)
		if k.Renewed != nil {
			// A minute after the publisher's renewal, when it comes first
			// and after the last fetch.
			if r := k.Renewed().Add(time.Minute); r.After(k.current.Fetched) && r.Before(at) {
				at = r
			}
		}
	}
	if k.notBefore.After(at) {
		at = k.notBefore
	}
	return at
}

// wait is how long until the next Step: the next fetch, or the next look
// at the store.
func (k *Keeper) wait() time.Duration {
	d := k.due().Sub(k.now())
	if k.Store != nil && d > Poll {
		return Poll
	}
	return max(d, time.Second)
}

// Step does one round: takes a newer stored result, and fetches the
// source when the result in use is due (its lease taken, when shared).
// It reports whether a result is in use afterwards.
func (k *Keeper) Step(ctx context.Context) bool {
	k.Load(ctx)
	if k.now().Before(k.due()) {
		return k.Fetched() != time.Time{}
	}
	if k.Store != nil {
		ok, err := k.Store.Lease(ctx, "fetch "+k.Name, k.Holder, k.now(), leaseTTL)
		if err != nil || !ok {
			return k.Fetched() != time.Time{} // another instance fetches; its result comes through the store
		}
	}
	if err := k.fetch(ctx); err != nil {
		if k.Failed != nil {
			k.Failed()
		}
		k.log().Error("trust source: fetch failed; the last good copy stays in use", slog.String("source", k.Name),
			slog.String("url", k.URL), slog.Time("fetched", k.Fetched()), slog.Any("error", err))
		k.mu.Lock()
		k.notBefore = k.now().Add(Retry)
		k.mu.Unlock()
	}
	return k.Fetched() != time.Time{}
}

// Load installs the stored result when it is newer than the one in use
// (or none is), and reports whether a result is in use. It fetches
// nothing: a start loads what the store has at once, and fetches in Run.
func (k *Keeper) Load(ctx context.Context) bool {
	if k.Store != nil {
		if d, err := k.Store.Document(ctx, k.Name); err != nil {
			k.log().Error("trust source: the store could not be read", slog.String("source", k.Name), slog.Any("error", err))
		} else if d != nil && d.Fetched.After(k.Fetched()) {
			k.use(d)
		}
	}
	return k.Fetched() != time.Time{}
}

// use installs d, unless Use refuses it; the same body as the one in
// use (the source not modified) only moves when it was fetched.
func (k *Keeper) use(d *Document) {
	k.mu.Lock()
	same := k.current != nil && bytes.Equal(k.current.Body, d.Body)
	if same {
		k.current = d
	}
	k.mu.Unlock()
	if same {
		return
	}
	if err := k.Use(d.Body, d.Fetched); err != nil {
		k.log().Error("trust source: a stored result was refused", slog.String("source", k.Name), slog.Any("error", err))
		return
	}
	k.mu.Lock()
	k.current = d
	k.mu.Unlock()
}

// fetch gets the source (conditionally), accepts and stores it.
func (k *Keeper) fetch(ctx context.Context) error {
	k.mu.Lock()
	prev := k.current
	k.mu.Unlock()
	url := k.URL
	if k.Unconditional {
		prev = nil
	}
	for hops := 0; ; hops++ {
		body, etag, modified, err := k.get(ctx, url, prev)
		if errors.Is(err, errNotModified) {
			d := *prev
			d.Fetched = k.now()
			k.store(ctx, &d)
			return nil
		}
		if err != nil {
			return err
		}
		result, err := k.accept(body)
		body.Close()
		var follow *Follow
		if errors.As(err, &follow) && hops == 0 {
			url = follow.URL
			prev = nil // the pointer's validators are not the target's
			continue
		}
		if err != nil {
			return err
		}
		k.log().Info("trust source fetched", slog.String("source", k.Name), slog.String("url", url), slog.Int("bytes", len(result)))
		return k.keep(ctx, &Document{Body: result, ETag: etag, LastModified: modified, Fetched: k.now()})
	}
}

func (k *Keeper) accept(body io.Reader) ([]byte, error) {
	return k.Accept(io.LimitReader(body, MaxBody))
}

// keep uses d and stores it for the other instances.
func (k *Keeper) keep(ctx context.Context, d *Document) error {
	if err := k.Use(d.Body, d.Fetched); err != nil {
		return err
	}
	k.store(ctx, d)
	return nil
}

// store makes d the result in use, and stores it for the other instances.
func (k *Keeper) store(ctx context.Context, d *Document) {
	k.mu.Lock()
	k.current = d
	k.mu.Unlock()
	if k.Store != nil {
		if err := k.Store.PutDocument(ctx, k.Name, d); err != nil {
			k.log().Error("trust source: the result could not be stored for the other instances", slog.String("source", k.Name), slog.Any("error", err))
		}
	}
}

var errNotModified = errors.New("not modified")

// get opens url: a file (errNotModified when its modification time is
// prev's), or an http(s) URL with prev's validators.
func (k *Keeper) get(ctx context.Context, url string, prev *Document) (io.ReadCloser, string, string, error) {
	if !strings.HasPrefix(url, "https://") && !strings.HasPrefix(url, "http://") {
		f, err := os.Open(url)
		if err != nil {
			return nil, "", "", err
		}
		st, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, "", "", err
		}
		mod := st.ModTime().UTC().Format(time.RFC3339Nano)
		if prev != nil && prev.LastModified == mod {
			f.Close()
			return nil, "", "", errNotModified
		}
		return f, "", mod, nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, "", "", err
	}
	if prev != nil {
		if prev.ETag != "" {
			req.Header.Set("If-None-Match", prev.ETag)
		}
		if prev.LastModified != "" {
			req.Header.Set("If-Modified-Since", prev.LastModified)
		}
	}
	client := k.Client
	if client == nil {
		client = &http.Client{Timeout: 5 * time.Minute}
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, "", "", err
	}
	switch {
	case resp.StatusCode == http.StatusNotModified && prev != nil:
		resp.Body.Close()
		return nil, "", "", errNotModified
	case resp.StatusCode != http.StatusOK:
		resp.Body.Close()
		return nil, "", "", fmt.Errorf("%s answered %d", url, resp.StatusCode)
	}
	return resp.Body, resp.Header.Get("ETag"), resp.Header.Get("Last-Modified"), nil
}
