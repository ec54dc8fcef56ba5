package caddymodule

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/redis/go-redis/v9"
	"go.uber.org/zap"
)

// go-redis writes its own complaints (a pool that cannot dial, a dropped
// connection) as plain text lines into what is otherwise obgw's JSON log.
// redisLog routes them through Caddy's logger as obgw's own lines, at
// warn level, naming the dependency, and at most one every redisLogEvery:
// an outage writes the same complaint for every connection attempt, and
// the lines in between are counted in the next one (issue 33, 2).
type redisLog struct {
	mu         sync.Mutex
	last       time.Time
	suppressed int
	now        func() time.Time
	logger     func() *zap.Logger
}

// redisLogEvery is how often go-redis's complaints are logged at most.
const redisLogEvery = 10 * time.Second

// Printf implements go-redis's internal.Logging.
func (l *redisLog) Printf(_ context.Context, format string, v ...any) {
	l.mu.Lock()
	t := l.now()
	if !l.last.IsZero() && t.Sub(l.last) < redisLogEvery {
		l.suppressed++
		l.mu.Unlock()
		return
	}
	suppressed := l.suppressed
	l.last, l.suppressed = t, 0
	l.mu.Unlock()
	msg := fmt.Sprintf(format, v...)
	if !strings.HasPrefix(msg, "redis: ") {
		msg = "redis: " + msg
	}
	l.logger().Warn(msg,
		zap.String("dependency", "redis"), zap.Int("suppressed_since_last", suppressed))
}

var redisLogOnce sync.Once

// routeRedisLog makes go-redis log through obgw's structured log, once
// per process.
func routeRedisLog() {
	redisLogOnce.Do(func() {
		redis.SetLogger(&redisLog{now: time.Now, logger: func() *zap.Logger { return caddy.Log().Named("redis") }})
	})
}
