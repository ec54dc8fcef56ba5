package caddymodule

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/dustin/go-humanize"
	"golang.org/x/sync/semaphore"

	"github.com/obgw/obgw/bgerror"
)

// DefaultBodyTimeout is how long obgw_verify waits for a whole request body
// once it starts reading it, when body_timeout is not set.
const DefaultBodyTimeout = 10 * time.Second

// DefaultBodyMemory is how many bytes of request bodies one configuration
// holds at once, when body_memory is not set.
const DefaultBodyMemory = 64 << 20

// DefaultBodyShare is how many of those bytes one TPP holds at once, when
// body_share is not set (at most body_memory).
const DefaultBodyShare = 4 << 20

// bodyBudget is the memory for request bodies: all requests together hold
// at most the total (body_memory), and the requests of one TPP, by the
// organizationIdentifier of the QSealC their signature verified with, at
// most share (body_share). So one TPP that opens many connections and
// trickles its bodies holds its share and no more, and the others' bodies
// are still read: starving them would take total/share TPPs, each with a
// QSealC, a registration and valid signatures. The map holds an entry
// per TPP with bytes held, so it is bounded by the requests in flight.
type bodyBudget struct {
	total *semaphore.Weighted
	share int64

	mu   sync.Mutex
	held map[string]int64
}

func newBodyBudget(total, share int64) *bodyBudget {
	return &bodyBudget{total: semaphore.NewWeighted(total), share: min(share, total), held: map[string]int64{}}
}

// acquire takes n bytes for tpp, or answers why not (503, retry in 1 s).
func (b *bodyBudget) acquire(tpp string, n int64) *bgerror.Error {
	b.mu.Lock()
	if b.held[tpp]+n > b.share {
		b.mu.Unlock()
		e := bgerror.New(bgerror.CodeServiceUnavailable, "your requests hold your share of the gateway's memory for request bodies ("+
			humanize.IBytes(uint64(b.share))+"); send fewer bodies at once, each at once after its headers, and retry")
		e.RetryAfter = 1
		return e
	}
	b.held[tpp] += n
	b.mu.Unlock()
	if !b.total.TryAcquire(n) {
		b.give(tpp, n)
		e := bgerror.New(bgerror.CodeServiceUnavailable, "the gateway is receiving too many request bodies at once; retry later")
		e.RetryAfter = 1
		return e
	}
	return nil
}

// release gives back n bytes tpp holds.
func (b *bodyBudget) release(tpp string, n int64) {
	b.total.Release(n)
	b.give(tpp, n)
}

// give takes n bytes off tpp's count, and its entry when none are left.
func (b *bodyBudget) give(tpp string, n int64) {
	b.mu.Lock()
	if left := b.held[tpp] - n; left > 0 {
		b.held[tpp] = left
	} else {
		delete(b.held, tpp)
	}
	b.mu.Unlock()
}

// Body buffers grow in chunks: the first is at most firstChunk bytes (less
// when Content-Length says so), each later one doubles the buffer up to
// maxChunk more. Memory follows the bytes that arrived, never what
// Content-Length announces.
const (
	firstChunk = 4 << 10
	maxChunk   = 64 << 10
)

// bodyRead is one request's body read: the bytes it holds from the app's
// body budget, counted against its TPP's share, until the request is
// answered.
type bodyRead struct {
	budget *bodyBudget
	tpp    string
	held   int64
}

// release gives the bytes held back to the budget.
func (b *bodyRead) release() {
	if b.held > 0 {
		b.budget.release(b.tpp, b.held)
		b.held = 0
	}
}

// read buffers r's body, for tpp, up to limit bytes within timeout and
// puts the same bytes back for the next handler, so that Digest is checked
// on exactly what is sent on. The buffer grows in chunks as bytes arrive,
// each taken from the budget first: when the TPP already holds its share,
// or the gateway its budget, of bodies, the request is refused (503)
// instead of the process growing.
func (b *bodyRead) read(w http.ResponseWriter, r *http.Request, tpp string, limit int64, timeout time.Duration) ([]byte, *bgerror.Error) {
	b.tpp = tpp
	// A deadline for the whole body, from the moment it is wanted: a
	// client trickling bytes cannot hold the stream past it. Caddy's
	// server timeouts (read_body, read_body_idle with min_rate) apply as
	// well; this one holds even when a Caddyfile sets none.
	rc := http.NewResponseController(w)
	if rc.SetReadDeadline(time.Now().Add(timeout)) == nil {
		defer rc.SetReadDeadline(time.Time{})
	}
	first := int64(firstChunk)
	if r.ContentLength > 0 && r.ContentLength < first {
		first = r.ContentLength + 1 // +1: EOF is seen without another chunk
	}
	var buf []byte
	for {
		if len(buf) == cap(buf) {
			if int64(len(buf)) > limit {
				return nil, tooLarge(limit)
			}
			grow := min(max(int64(cap(buf)), first), maxChunk, limit+1-int64(len(buf)))
			if e := b.budget.acquire(tpp, grow); e != nil {
				return nil, e
			}
			b.held += grow
			next := make([]byte, len(buf), int64(cap(buf))+grow)
			copy(next, buf)
			buf = next
		}
		n, err := r.Body.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit {
			return nil, tooLarge(limit)
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return nil, bgerror.NewStatus(http.StatusRequestTimeout, bgerror.CodeFormatError,
				"the request body did not arrive in time; send it at once after the headers")
		}
		if err != nil {
			var mb *http.MaxBytesError
			if errors.As(err, &mb) {
				return nil, tooLarge(mb.Limit)
			}
			return nil, bgerror.New(bgerror.CodeFormatError, "the request body could not be read completely")
		}
	}
	r.Body = io.NopCloser(bytes.NewReader(buf))
	r.ContentLength = int64(len(buf))
	return buf, nil
}

func tooLarge(max int64) *bgerror.Error {
	return bgerror.NewStatus(http.StatusRequestEntityTooLarge, bgerror.CodeFormatError,
		"the request body is larger than "+humanize.IBytes(uint64(max)))
}
