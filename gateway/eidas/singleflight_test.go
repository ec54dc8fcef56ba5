package eidas

import (
	"bytes"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// waitSharing waits until n goroutines wait in singleflight.Group.Do for a
// call another goroutine runs. singleflight does not say how many callers
// share a call, so the goroutine dump is read: a caller that shares a call
// is parked in Do itself, the one running it in doCall.
func waitSharing(t *testing.T, n int, release chan struct{}) {
	t.Helper()
	buf := make([]byte, 1<<20)
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := 0
		for g := range bytes.SplitSeq(buf[:runtime.Stack(buf, true)], []byte("\n\n")) {
			if bytes.Contains(g, []byte("singleflight.(*Group).Do(")) && !bytes.Contains(g, []byte("singleflight.(*Group).doCall(")) {
				got++
			}
		}
		if got >= n {
			return
		}
		if time.Now().After(deadline) {
			close(release)
			t.Fatalf("only %d callers joined the running call, want %d", got, n)
		}
		time.Sleep(time.Millisecond)
	}
}

// panicOnce is a transport whose first request waits for release and
// then panics; later requests go to next.
type panicOnce struct {
	started, release chan struct{}
	calls            atomic.Int32
	next             http.RoundTripper
}

func (p *panicOnce) RoundTrip(r *http.Request) (*http.Response, error) {
	if p.calls.Add(1) == 1 {
		close(p.started)
		<-p.release
		panic("boom")
	}
	return p.next.RoundTrip(r)
}

// TestOCSPCheckerPanicReleasesKey checks that a check that panics while
// another waits for it makes both panic (neither reads "not revoked") and
// leaves the certificate free for the next check, which asks again.
func TestOCSPCheckerPanicReleasesKey(t *testing.T) {
	rs := revocationFixture(t)
	tr := &panicOnce{started: make(chan struct{}), release: make(chan struct{}), next: rs.srv.Client().Transport}
	c := rs.ocspChecker(nil)
	c.Client = &http.Client{Transport: tr}
	check := func() <-chan string {
		out := make(chan string, 1)
		go func() {
			defer func() {
				if r := recover(); r != nil {
					out <- fmt.Sprint("panic: ", r)
				}
			}()
			revoked, err := c.Revoked(rs.revoked, rs.issuer)
			out <- fmt.Sprintf("revoked=%v err=%v", revoked, err)
		}()
		return out
	}
	first := check()
	<-tr.started
	second := check()
	waitSharing(t, 1, tr.release)
	close(tr.release)
	for i, ch := range []<-chan string{first, second} {
		if got := <-ch; !strings.HasPrefix(got, "panic: ") || !strings.Contains(got, "boom") {
			t.Errorf("caller %d: %s; want the panic", i+1, got)
		}
	}
	select {
	case got := <-check():
		if got != "revoked=true err=<nil>" {
			t.Errorf("check after the panic: %s; want revoked=true err=<nil>", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the check after the panic hangs")
	}
	if n := tr.calls.Load(); n != 2 {
		t.Errorf("%d OCSP requests, want 2 (the one that panicked and a fresh one)", n)
	}
}
