//go:build soak

package integration

import (
	"io"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestSoak (make soak) sends mixed signed traffic for OBGW_SOAK_DURATION
// (default 10m) and samples the gateway's resident memory and goroutines
// every 30 s; both must stay flat after warm-up. The curve is logged.
func TestSoak(t *testing.T) {
	dur := 10 * time.Minute
	if d, err := time.ParseDuration(os.Getenv("OBGW_SOAK_DURATION")); err == nil {
		dur = d
	}
	g := startGateway(t, "Caddyfile", databaseEnv(t, "sqlite")...)
	s, account := consented(t, g)
	paths := []struct {
		method, path string
		present      bool
	}{
		{"GET", "/v1/accounts?withBalance=true", true},
		{"GET", "/v1/accounts/" + account + "/transactions?bookingStatus=both", true},
		{"GET", "/v1/accounts/" + account + "/balances", true},
		{"GET", "/v1/card-accounts", true},
		{"GET", "/v1/nothing", true},
	}
	var sent, failed atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := 0; w < 6; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			sess := &tppSession{t: t, g: g, c: client(nil), tpp: "tpp", sid: s.sid, psuID: s.psuID}
			for i := w; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				p := paths[i%len(paths)]
				got := sess.call(p.method, p.path, p.present)
				sent.Add(1)
				if got.status >= 500 {
					failed.Add(1)
				}
				if i%7 == 0 { // an unsigned request now and then
					req := newRequest(t, g, "GET", "/v1/accounts", nil)
					badRequest(req)
					resp, err := sess.c.Do(req)
					if err == nil {
						io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
					}
				}
			}
		}(w)
	}
	type sample struct {
		at         time.Duration
		rssKiB     int
		goroutines int
	}
	var curve []sample
	start := time.Now()
	for time.Since(start) < dur {
		time.Sleep(min(30*time.Second, dur-time.Since(start)))
		curve = append(curve, sample{time.Since(start).Round(time.Second), rss(t, g.cmd.Process.Pid), goroutines(t, g)})
	}
	close(stop)
	wg.Wait()
	t.Logf("%d requests, %d 5xx", sent.Load(), failed.Load())
	for _, c := range curve {
		t.Logf("t=%s rss=%d KiB goroutines=%d", c.at, c.rssKiB, c.goroutines)
	}
	if failed.Load() != 0 {
		t.Errorf("%d requests answered 5xx", failed.Load())
	}
	if len(curve) >= 3 {
		// The heap grows to its working size in the first minutes (GC
		// targets, caches, connection buffers); flat means the second half
		// of the run does not keep growing.
		base, last := curve[len(curve)/2], curve[len(curve)-1]
		if float64(last.rssKiB) > 1.25*float64(base.rssKiB) {
			t.Errorf("RSS grew from %d to %d KiB", base.rssKiB, last.rssKiB)
		}
		if last.goroutines > base.goroutines+50 {
			t.Errorf("goroutines grew from %d to %d", base.goroutines, last.goroutines)
		}
	}
}
