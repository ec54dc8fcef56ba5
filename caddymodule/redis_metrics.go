package caddymodule

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

// redisTimer is a go-redis hook that times every command (and pipeline)
// the gateway sends Redis into obgw_redis_duration_seconds, by command
// name: the few the replay store and the limiter use.
type redisTimer struct{ m *metrics }

// DialHook leaves dialling as it is.
func (redisTimer) DialHook(next redis.DialHook) redis.DialHook { return next }

// ProcessHook times one command.
func (t redisTimer) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		start := time.Now()
		err := next(ctx, cmd)
		t.m.redis.WithLabelValues(cmd.Name()).Observe(time.Since(start).Seconds())
		return err
	}
}

// ProcessPipelineHook times a pipeline as one "pipeline" command.
func (t redisTimer) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		start := time.Now()
		err := next(ctx, cmds)
		t.m.redis.WithLabelValues("pipeline").Observe(time.Since(start).Seconds())
		return err
	}
}

var _ redis.Hook = redisTimer{}
