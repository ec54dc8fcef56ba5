package caddymodule

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"os"
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

// Body buffers grow in chunks: the first is at most firstChunk bytes (less
// when Content-Length says so), each later one doubles the buffer up to
// maxChunk more. Memory follows the bytes that arrived, never what
// Content-Length announces.
const (
	firstChunk = 4 << 10
	maxChunk   = 64 << 10
)

// bodyRead is one request's body read: the bytes it holds from the app's
// body budget until the request is answered.
type bodyRead struct {
	budget *semaphore.Weighted
	held   int64
}

// release gives the bytes held back to the budget.
func (b *bodyRead) release() {
	if b.held > 0 {
		b.budget.Release(b.held)
		b.held = 0
	}
}

// read buffers r's body up to limit bytes within timeout and puts the same
// bytes back for the next handler, so that Digest is checked on exactly
// what is sent on. The buffer grows in chunks as bytes arrive, each taken
// from the budget first: when the gateway already holds its budget of
// bodies, the request is refused (503) instead of the process growing.
func (b *bodyRead) read(w http.ResponseWriter, r *http.Request, limit int64, timeout time.Duration) ([]byte, *bgerror.Error) {
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
			if !b.budget.TryAcquire(grow) {
				e := bgerror.New(bgerror.CodeServiceUnavailable, "the gateway is receiving too many request bodies at once; retry later")
				e.RetryAfter = 1
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
