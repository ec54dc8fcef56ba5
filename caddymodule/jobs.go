package caddymodule

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"sync"
	"time"

	"github.com/obgw/obgw/backend"
)

// jobs is the obgw app's background work: the sandbox's payment batch
// runs and the retention sweep, one scheduler of each per database however
// many obgw_backend handlers use it. Handlers register in Provision; the app starts the schedulers in
// Start and stops them in Stop, so `caddy validate` starts none and a
// config reload hands over from the old schedulers to the new.
type jobs struct {
	mu      sync.Mutex
	batches map[string]batchJob // by database
	sweeps  map[string]func(context.Context) (*backend.Server, error)
	cancel  context.CancelFunc
	wg      sync.WaitGroup
}

// instance names this process as the holder of job leases: of several
// instances on one database, the one holding a job's lease runs it.
var instance = func() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}()

// batchJob is the batch runs of one sandbox database.
type batchJob struct {
	times  []time.Duration
	server func(context.Context) (*backend.Server, error)
}

// scheduleBatches asks for batch runs at times on the database named key,
// run through server; the first handler of a database to ask wins, the
// others share its scheduler.
func (j *jobs) scheduleBatches(key string, times []time.Duration, server func(context.Context) (*backend.Server, error)) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.batches == nil {
		j.batches = map[string]batchJob{}
	}
	if _, ok := j.batches[key]; !ok {
		j.batches[key] = batchJob{times: times, server: server}
	}
}

// scheduleSweeps asks for the retention sweep of the database named key,
// run through server.
func (j *jobs) scheduleSweeps(key string, server func(context.Context) (*backend.Server, error)) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.sweeps == nil {
		j.sweeps = map[string]func(context.Context) (*backend.Server, error){}
	}
	if _, ok := j.sweeps[key]; !ok {
		j.sweeps[key] = server
	}
}

// start runs every scheduled job until stop.
func (j *jobs) start(a *App) {
	j.mu.Lock()
	defer j.mu.Unlock()
	ctx, cancel := context.WithCancel(context.Background())
	j.cancel = cancel
	for _, b := range j.batches {
		j.wg.Add(1)
		go func() {
			defer j.wg.Done()
			backend.RunBatches(ctx, b.times, b.server, a.slog, now, instance)
		}()
	}
	for _, server := range j.sweeps {
		j.wg.Add(1)
		go func() {
			defer j.wg.Done()
			backend.RunSweeps(ctx, server, a.slog, now, instance, a.metrics.swept)
		}()
	}
}

// stop ends every job and waits for them (a batch run under way ends with
// its context).
func (j *jobs) stop() {
	j.mu.Lock()
	cancel := j.cancel
	j.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	j.wg.Wait()
}
